"""Stage C6: ``webhook_callback_url`` checks (reference §6.4).

A value without a scheme gets ``https://``; then the URL must parse, use http or https, be at
most 2083 characters, and not name an AWS load balancer. Which hosts count as "blocked or
internal" depends on the deployment; like the local self-hosted server the reference observed
(which accepted ``127.0.0.1`` and ``localhost``), the mock blocks none unless told to.
"""

from __future__ import annotations

import re

from pydantic import AnyUrl, TypeAdapter, ValidationError

_HINT = "Use an HTTP or HTTPS URL with at most 2083 characters."
MALFORMED = f"Invalid webhook_callback_url: malformed. {_HINT}"
BAD_SCHEME = f"Invalid webhook_callback_url: unsupported scheme. {_HINT}"
BLOCKED = "Invalid webhook_callback_url: blocked host."
ELB = ("Invalid webhook_callback_url: unsupported host. Use a stable custom hostname instead of "
       "an AWS load balancer DNS name.")
MAX_LENGTH = 2083

_URL = TypeAdapter(AnyUrl)
_ELB_HOST = re.compile(r"\.[a-z]{2}(-gov)?-[a-z]+-\d\.elb\.amazonaws\.com\.?$", re.IGNORECASE)


def normalize_webhook_url(url: str) -> str:
    """The stored form: ``https://`` is assumed when the value has no scheme."""
    return url if "://" in url else "https://" + url


def webhook_url_error(url: str, blocked_hosts: frozenset[str] = frozenset()) -> str | None:
    """The C6 message for a non-empty ``webhook_callback_url``, or None when it is fine."""
    full = normalize_webhook_url(url.strip())
    if len(full) > MAX_LENGTH:
        return MALFORMED
    try:
        parsed = _URL.validate_python(full)
    except ValidationError:
        return MALFORMED
    if parsed.scheme not in ("http", "https"):
        return BAD_SCHEME
    host = (parsed.host or "").lower()
    if not host:
        return MALFORMED
    if host.strip("[]") in blocked_hosts:
        return BLOCKED
    if _ELB_HOST.search(host):
        return ELB
    return None
