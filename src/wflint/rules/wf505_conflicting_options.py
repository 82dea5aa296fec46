"""Options the service refuses together, or an option value its request model refuses.

**What it checks.** The service's own request-model rules about how options combine:

* ``http_request``: ``save_response_as_file: true`` with a non-empty
  ``secret_response_paths``;
* ``send_email``: custom SMTP settings with ``transport: gmail``; no ``sender`` key unless the
  transport is gmail; ``cc``/``bcc`` without the gmail transport;
* ``web_search``: ``no_match_error_code`` without a ``prompt``.

It also holds the single-value model rules that have no better home among the other codes
(they are custom checks of the service, not types, enums or bounds):

* ``terminate.error_code``: a literal code must be at most 128 characters of
  ``A-Z a-z 0-9 _ . : -``; no Unicode control or format characters in any code;
* ``web_search``: a blank ``no_results_error_code``/``no_match_error_code``; a ``json_schema``
  without templates that is not a valid JSON Schema;
* ``retry_policy.retry_on`` naming a status twice;

(The code block's ``error_code_mapping`` limits are WF105; ``browser_type`` and
``timezone_id`` values are WF103; ``max_elapsed_time_minutes: true`` is WF102.)

**Why.** The service refuses the save (422) with its own message for each, e.g.
"secret_response_paths cannot be combined with save_response_as_file" or "custom SMTP settings
cannot be combined with the gmail transport".

**Bad**::

    - block_type: http_request
      label: fetch_token
      url: "https://api.example.com/token"
      save_response_as_file: true
      secret_response_paths: ["access_token"]

**Good**::

    - block_type: http_request
      label: fetch_token
      url: "https://api.example.com/token"
      secret_response_paths: ["access_token"]
"""

import sys

from ..checks import service_checks
from .verdicts import model_verdict
from ..model.lax import lax_bool

CODE = "WF505"
NAME = "conflicting-options"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.all_blocks:
        found = _BLOCK_CHECKS.get(b.tag)
        if found is None or (b.tag == "send_email" and not wf.release.has_check("send_email_transport")):
            continue
        if b.tag == "http_request" and wf.release.BLOCK_TYPES["http_request"].field("secret_response_paths") is None:
            continue  # before 1.0.45 there is no such field: dropped unread
        for path, problem, hint in found(b):
            yield wf.diag(rule, f"{b.tag} block '{b.label}': {problem}; the service rejects it", path,
                          help=hint, service=model_verdict(wf, path))
    for path, problem, hint in _top_level(wf.request):
        yield wf.diag(rule, f"{problem}; the service rejects it", path, help=hint, service=model_verdict(wf, path))


def _str(value):
    return value if isinstance(value, str) else None


# --------------------------------------------------------------------------- blocks


def _http_request(b):
    paths = b.data.get("secret_response_paths")
    if lax_bool(b.data.get("save_response_as_file", False)) and isinstance(paths, list):
        error = service_checks.http_request_conflict_error(True, paths)
        if error:
            yield (b.path + ("secret_response_paths",), f"\"{error}\" (a response saved as a file cannot have "
                   "secrets masked in it)", "drop save_response_as_file, or drop secret_response_paths")


def _send_email(b):
    d = b.data
    cc, bcc = d.get("cc", []), d.get("bcc", [])
    if not isinstance(cc, list) or not isinstance(bcc, list):
        return
    port = d.get("custom_smtp_port")
    error = service_checks.send_email_transport_error(
        transport=_str(d.get("transport")),
        custom_smtp_host=_str(d.get("custom_smtp_host")),
        custom_smtp_port=port,
        custom_smtp_username=_str(d.get("custom_smtp_username")),
        custom_smtp_password=_str(d.get("custom_smtp_password")),
        sender_given="sender" in d,
        cc=[c for c in cc if isinstance(c, str)],
        bcc=[c for c in bcc if isinstance(c, str)],
    )
    if error is None:
        return
    if error.startswith("custom SMTP"):
        yield (b.path + ("transport",), f"\"{error}\"",
               "gmail sends from the Google account credential_id: remove the custom_smtp_* settings, or the transport")
    elif error.startswith("sender"):
        yield (b.path + ("label",), f"\"{error}\" (the key must be present, even empty)",
               "add sender: \"me@example.com\", or set transport: gmail")
    else:
        field = "cc" if any(isinstance(c, str) and c.strip() for c in cc) else "bcc"
        yield (b.path + (field,), f"\"{error}\"", "set transport: gmail (with credential_id), or remove cc/bcc")


def _web_search(b):
    d = b.data
    for field in ("no_results_error_code", "no_match_error_code"):
        code = d.get(field)
        if isinstance(code, str) and code and service_checks.outcome_error_code_error(code):
            yield (b.path + (field,), f"{field} is blank: \"{service_checks.outcome_error_code_error(code)}\"",
                   "write an error code, or remove the key")
    no_match = d.get("no_match_error_code")
    prompt = d.get("prompt")
    if isinstance(no_match, str) and no_match.strip() and (prompt is None or isinstance(prompt, str)):
        error = service_checks.web_search_no_match_error(no_match, prompt)
        if error:
            yield (b.path + ("no_match_error_code",), f"\"{error}\" (the code is raised when the prompt finds "
                   "no match, so there must be a prompt)", "add a prompt that filters the results, or remove no_match_error_code")
    schema = d.get("json_schema")
    if isinstance(schema, dict):
        error = service_checks.web_search_json_schema_error(schema)
        if error:
            yield (b.path + ("json_schema",), f"\"{error}\"", "fix the schema (Draft 2020-12), e.g. {type: object, properties: {...}}")


def _terminate(b):
    code = b.data.get("error_code")
    if not isinstance(code, str):
        return
    error = service_checks.terminate_error_code_error(service_checks.normalize_terminate_error_code(code))
    if error:
        yield (b.path + ("error_code",), f"error_code {code!r}: \"{error}\"",
               "use a short code such as LOGIN_FAILED (letters, digits, _ . : -)")


_BLOCK_CHECKS = {
    "http_request": _http_request,
    "send_email": _send_email,
    "web_search": _web_search,
    "terminate": _terminate,
}


# --------------------------------------------------------------------------- top level and definition


def _top_level(request):
    d = request.get("workflow_definition")
    if not isinstance(d, dict):
        return
    yield from _retry_policy(d.get("retry_policy"))


def _retry_policy(policy):
    rules = policy.get("retry_on") if isinstance(policy, dict) else None
    if not isinstance(rules, list):
        return
    seen = set()
    for i, item in enumerate(rules):
        status = item.get("status") if isinstance(item, dict) else None
        if not isinstance(status, str):
            continue
        if status in seen:
            yield (("workflow_definition", "retry_policy", "retry_on", i, "status"),
                   f"retry_on names status '{status}' twice: \"{service_checks.retry_on_duplicate_error([status, status])}\"",
                   "merge the two rules: list all their error_codes in one")
        seen.add(status)
