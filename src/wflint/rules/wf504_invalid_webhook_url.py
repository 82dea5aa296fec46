"""``webhook_callback_url`` is not a usable http(s) URL.

**What it checks.** The service's URL check of ``webhook_callback_url`` (a value without a
scheme gets ``https://`` first): the URL must parse, be at most 2083 characters, use http or
https, and not name an AWS load balancer (``….elb.amazonaws.com``). It also warns when the
host is a loopback, private, link-local or unspecified address written literally
(``127.0.0.1``, ``10.0.0.5``, ``[::1]``, ``0.0.0.0``) or the name ``localhost``: wflint
does no DNS look-ups.

**Why.** The service refuses the save (400): "Invalid webhook_callback_url: malformed. Use an
HTTP or HTTPS URL with at most 2083 characters.", "... unsupported scheme. ...", or "...
unsupported host. Use a stable custom hostname instead of an AWS load balancer DNS name.".
Private and loopback hosts depend on the deployment: hosted services refuse them ("blocked
host"), a local self-hosted server accepts them; and the webhook is called from the service's
machines, where ``localhost`` is not your machine. That is a warning. (On an update the service
checks the URL only when it changed; wflint checks it always.)

**Bad**::

    webhook_callback_url: "ftp://hooks.example.com/skyvern"

**Good**::

    webhook_callback_url: "https://hooks.example.com/skyvern"
"""

import sys

from ..checks.webhook_url import BAD_SCHEME, ELB, MALFORMED, internal_host, webhook_url_error
from .verdicts import service_verdict

CODE = "WF504"
NAME = "invalid-webhook-url"
SEVERITY = "error"


_EXPLAIN = {
    MALFORMED: ("is not a valid URL (or is longer than 2083 characters)", "write a full URL such as https://hooks.example.com/skyvern"),
    BAD_SCHEME: ("does not use http or https", "use an https:// URL"),
    ELB: ("names an AWS load balancer, whose DNS name can change", "put a stable custom host name in front of the load balancer"),
}


def check(wf):
    rule = sys.modules[__name__]
    url = wf.request.get("webhook_callback_url")
    if not isinstance(url, str) or not url:
        return
    path = ("webhook_callback_url",)
    error = webhook_url_error(url)
    if error and not wf.release.has_check("webhook_url"):
        what, hint = _EXPLAIN[error]
        yield wf.diag(rule, f"webhook_callback_url {url[:80]!r} {what}: your target {wf.release.version} stores it "
                      "unchecked, newer releases refuse it (400), and no webhook can be called at it", path,
                      severity="warning", help=hint)
        return
    if error:
        what, hint = _EXPLAIN[error]
        yield wf.diag(rule, f"webhook_callback_url {url[:80]!r} {what}; the service rejects the save (400)", path,
                      help=hint, service=service_verdict(400, error, "C", 6))
        return
    host = internal_host(url)
    if host:
        yield wf.diag(rule, f"webhook_callback_url points at {host}, a loopback or private address: the service "
                      "calls it from its own machines, and hosted deployments refuse it (\"Invalid "
                      "webhook_callback_url: blocked host.\"); only a local self-hosted server accepts it", path,
                      severity="warning", help="use a host name the service can reach, e.g. a public https endpoint")
