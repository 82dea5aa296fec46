"""A literal password, token or key in a field that should take a parameter or secret.

**What it checks.**

* literal values of the password and key fields of storage and e-mail blocks
  (``custom_smtp_password``, ``sftp_password``, ``sftp_private_key``,
  ``sftp_private_key_passphrase``, ``aws_secret_access_key``, ``azure_storage_account_key``),
  and an ``aws_access_key_id`` that is a real AWS key id (``AKIA``/``ASIA`` + 16 characters);
* the ``default_value`` of a workflow parameter whose key names a secret (``password``,
  ``api_key``, ``client_secret`` ...);
* credential-carrying HTTP headers (``Authorization``, ``X-Api-Key``, ``Cookie``, ``*-Token``
  ...) with a literal value, in ``http_request`` blocks and in ``extra_http_headers`` /
  ``cdp_connect_headers``;
* anywhere in the workflow, strings shaped like well-known credentials: OpenAI/Anthropic
  ``sk-...`` keys, GitHub ``ghp_...`` tokens, Slack ``xoxb-...`` tokens, Google ``AIza...``
  keys, Stripe live keys, AWS key ids, JSON Web Tokens and PEM private-key blocks.

Values that are templates (``{{ smtp_password }}``) are fine, and so is anything inside a
Jinja tag. Placeholders (``<password>``, ``${TOKEN}``, ``xxxx``, key-shaped text without digits)
are not reported.

**Why.** A workflow definition is stored, listed, exported and shared in plain text. A secret
written into it leaks to everyone who can read the workflow; secret parameters
(``aws_secret``, ``credential``, ``bitwarden_sensitive_information`` ...) keep it out of the
definition and out of run logs.

**Bad**::

    blocks:
      - block_type: http_request
        label: call_api
        url: https://api.example.com/v1/orders
        headers: {Authorization: "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"}

**Good**::

    parameters:
      - {parameter_type: credential, key: api_token, credential_id: cred_123}
    blocks:
      - block_type: http_request
        label: call_api
        url: https://api.example.com/v1/orders
        headers: {Authorization: "Bearer {{ api_token }}"}
"""

import re
import sys

from ..checks import template_sites
from ..core.patterns import lazy

CODE = "WF601"
NAME = "hardcoded-secret"
SEVERITY = "warning"

#: block fields that only ever hold a secret
SECRET_FIELDS = ("custom_smtp_password", "sftp_password", "sftp_private_key", "sftp_private_key_passphrase",
                 "aws_secret_access_key", "azure_storage_account_key")
_AWS_KEY_ID = lazy(r"(?:AKIA|ASIA)[0-9A-Z]{16}")
_SECRET_HEADER = lazy(
    r"^(?:(?:proxy-)?authorization|cookie|set-cookie|x-?api-?key|api-?key|apikey|x-?auth.*|.*-?token"
    r"|.*secret.*|.*password.*|x-amz-security-token|private-token|x-functions-key|ocp-apim-subscription-key)$",
    re.I)
_BLOCK_FIELDS = SECRET_FIELDS + ("aws_access_key_id",)
#: workflow parameter keys whose default value is a secret when it is set (the key must end
#: with the word: ``api_key_header`` or ``password_policy`` hold no secret)
_SECRET_KEY = lazy(r"(?:passw(?:or)?d|secret|api_?key|access_?key|private_?key)$", re.I)
#: words that make a default value an example rather than a secret
_PLACEHOLDER_WORDS = lazy(r"your|example|xxxx|\.\.\.|changeme|change_me|placeholder|replace|dummy|sample", re.I)
_AUTH_SCHEME = lazy(r"^(?:bearer|basic|token|bot|digest|apikey|key)\s+", re.I)
_PLACEHOLDER = lazy(r"^(?:<[^>]*>|\$\{[^}]*\}|\$[A-Z_][A-Z0-9_]*|%[^%]+%|\[[^\]]*\]|\*+|x+|\.+|-+)$", re.I)

#: (what, pattern) for credential-shaped text anywhere; each body needs a letter and a digit
_SHAPES = (
    ("a PEM private key", lazy(r"-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----")),
    ("an AWS access key id", lazy(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("an OpenAI/Anthropic-style API key", lazy(r"\bsk-(?:proj-|ant-|live-|svcacct-)?[A-Za-z0-9_-]{20,}")),
    ("a GitHub token", lazy(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("a Slack token", lazy(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("a Google API key", lazy(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("a Stripe live key", lazy(r"\b[rs]k_live_[0-9A-Za-z]{20,}")),
    ("a JSON Web Token", lazy(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
)
#: (literal, what must match where it occurs) for the start of every credential shape. Finding
#: the literal first and matching only there is exactly a search for the shapes' starts, and
#: costs a few ``str.find`` over a file instead of a regular expression tried at every offset
#: (which cost about 2 ms a file).
_PROBES = tuple(
    (literal, lazy(rx) if rx else None) for literal, rx in (
        ("PRIVATE KEY", ""), ("AKIA", r"\bAKIA[0-9A-Z]{16}"), ("ASIA", r"\bASIA[0-9A-Z]{16}"), ("sk-", r"\bsk-"),
        ("ghp_", r"\bgh"), ("gho_", r"\bgh"), ("ghu_", r"\bgh"), ("ghs_", r"\bgh"), ("ghr_", r"\bgh"),
        ("github_pat_", ""), ("xox", r"\bxox[abposr]-"), ("AIza", ""), ("k_live_", ""), ("eyJ", r"\beyJ"),
    )
)


def _credential_shaped(text: str) -> bool:
    """Whether a credential shape may start somewhere in ``text``."""
    for literal, start in _PROBES:
        at = text.find(literal)
        while at >= 0:
            if start is None or start.match(text, at):
                return True
            at = text.find(literal, at + 1)
    return False


def check(wf):
    rule = sys.modules[__name__]
    reported: set = set()
    for b in wf.all_blocks:
        for field in _BLOCK_FIELDS:
            value = b.data.get(field)
            if value is None or not _literal(value) or (field == "aws_access_key_id" and not _AWS_KEY_ID.fullmatch(value.strip())):
                continue
            reported.add(b.path + (field,))
            what = "an AWS access key id" if field == "aws_access_key_id" else "a secret"
            yield wf.diag(rule, f"'{field}' of {_block(b)} holds {what} written into the workflow",
                          b.path + (field,), help=_field_help(field))
        if b.tag == "http_request":
            yield from _headers(wf, rule, b.path + ("headers",), b.data.get("headers"), _block(b), reported, True)
    for p in wf.params:
        value = p.data.get("default_value")
        if (p.type == "workflow" and p.key and _SECRET_KEY.search(p.key) and _literal(value)
                and len(value.strip()) >= 6 and " " not in value.strip() and not _PLACEHOLDER_WORDS.search(value)):
            reported.add(p.path + ("default_value",))
            yield wf.diag(rule, f"parameter '{p.key}' has a literal secret as its default_value",
                          p.path + ("default_value",),
                          help="declare it as a secret parameter (aws_secret, credential ...) without a default")
    for field in ("extra_http_headers", "cdp_connect_headers"):
        yield from _headers(wf, rule, (field,), wf.request.get(field), f"'{field}'", reported, False)
    # most files hold nothing credential-shaped: look at the whole text once before walking
    # (a request that came as data, the mock's, has no text: its strings, joined, stand in)
    text = wf.source.text if wf.source is not None else _joined_strings(wf.request)
    if _credential_shaped(text):
        yield from _shapes(wf, rule, reported)


def _joined_strings(value) -> str:
    """Every string of ``value`` joined with NUL between them. A credential shape never holds
    NUL, and NUL is not a word character, so a shape starts in the joined text exactly where
    it starts in one of the strings."""
    out: list[str] = []
    stack = [value]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return "\0".join(out)


def _block(b) -> str:
    return f"{b.tag or 'block'} block '{b.label}'"


def _literal(value) -> bool:
    if not isinstance(value, str) or not value.strip() or "{{" in value or "{%" in value:
        return False
    v = value.strip()
    return not _PLACEHOLDER.match(v) and len(set(v)) > 1


def _field_help(field: str) -> str:
    if field == "custom_smtp_password":
        return ("remove it and declare an aws_secret parameter with key 'smtp_password': with a "
                "custom_smtp_host the service reads the password from it")
    return f"declare a secret parameter (aws_secret, credential ...) and reference it: '{{{{ {field} }}}}'"


def _headers(wf, rule, path, headers, owner, reported, templated):
    if not isinstance(headers, dict):
        return
    for name, value in headers.items():
        if not isinstance(name, str) or not _SECRET_HEADER.match(name.strip()) or not _literal(value):
            continue
        credential = _AUTH_SCHEME.sub("", value.strip())
        if len(credential) < 8 or " " in credential or _PLACEHOLDER.match(credential):
            continue
        reported.add(path + (name,))
        help = ("reference a secret parameter instead, e.g. 'Bearer {{ api_token }}'" if templated else
                "the service sends these headers as written: keep this file private, or set the "
                "header from a secret at run time")
        yield wf.diag(rule, f"header '{name}' of {owner} holds a literal credential", path + (name,), help=help)


def _shapes(wf, rule, reported):
    stack = [((), wf.request)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend((path + (k,), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((path + (i,), v) for i, v in reversed(list(enumerate(value))))
        elif isinstance(value, str) and path not in reported and _credential_shaped(value):
            tags = template_sites.analyze(value).tags if template_sites.has_jinja(value) else ()
            for what, pattern in _SHAPES:
                for m in pattern.finditer(value):
                    if _inside(tags, m.start()) or not _credential_like(m.group(0), what):
                        continue
                    start = template_sites.locate_in(wf, path, value, m.start())
                    end = template_sites.locate_in(wf, path, value, m.end())
                    yield wf.diag(rule, f"{what} is written into the workflow", path,
                                  help="store it as a secret parameter and reference it with {{ key }}",
                                  start=start, end=end)
                    break


def _inside(tags, offset: int) -> bool:
    return any(start <= offset < end for start, end, _ in tags)


def _credential_like(text: str, what: str) -> bool:
    if what in ("a PEM private key", "a JSON Web Token"):
        return True
    body = text.split("-", 1)[-1] if text.startswith(("sk-", "xox")) else text
    if _PLACEHOLDER_WORDS.search(body) or "0000000" in body:
        return False
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)
