"""A declared parameter is referenced nowhere.

**What it checks.** Each declared parameter's key must appear somewhere: a block's
``parameter_keys``, a template (``{{ key }}``, ``{% if key %}``), a ``for_loop`` source, a
context parameter's ``source_parameter_key``, a Bitwarden ``url_parameter_key``, a
``send_email`` SMTP slot, or the whole value of a field the engine reads as a key.

**What the engine does with a bare key.** A block whose ``url`` is exactly a parameter's key
(``url: order_history_url``, as the service's documentation writes it) opens the parameter's
value: the engine gives the block that parameter and replaces the text with its value. The
same holds for a task-style block's ``totp_identifier`` and ``download_suffix``, the storage
settings and ``path`` of ``file_upload``/``file_download``, ``download_to_s3.url``,
``upload_to_s3.path``, the ``file_url`` of the parsers, ``http_request.url`` and
``send_email``'s ``subject``, ``body`` and ``file_attachments`` (``wflint.engine.key_fields``).
Such a parameter is used.

**Why.** An unused parameter is usually a leftover or a typo on the other side: the block
meant to read it names something else. The service accepts it silently.

**Bad**::

    parameters:
      - {parameter_type: workflow, key: start_url, workflow_parameter_type: string}
    blocks:
      - {block_type: goto_url, label: open, url: "https://example.com"}

**Good**::

    blocks:
      - {block_type: goto_url, label: open, url: "{{ start_url }}"}
"""

import sys

from ..checks import template_sites
from ..engine.key_fields import keys_named

CODE = "WF213"
NAME = "unused-parameter"
SEVERITY = "warning"

_SMTP_SLOTS = ("smtp_host", "smtp_port", "smtp_username", "smtp_password")
#: block fields that name a parameter by its key
_KEY_FIELDS = ("loop_over_parameter_key",) + tuple(f"{s}_secret_parameter_key" for s in _SMTP_SLOTS)


def referenced_names(wf) -> set[str]:
    """Every name a parameter could be referenced by, collected over the whole request: the
    variables the templated fields read (see ``wflint.checks.template_sites``) and the key fields."""
    used = template_sites.read_names(wf)
    declared = {p.key for p in wf.params if isinstance(p.key, str)}
    for b in wf.all_blocks:
        used |= keys_named(b.tag, b.data, declared)
        keys = b.data.get("parameter_keys")
        if isinstance(keys, list):
            used.update(k for k in keys if isinstance(k, str))
        for field in _KEY_FIELDS:
            v = b.data.get(field)
            if isinstance(v, str):
                used.add(v)
        ref = b.data.get("loop_variable_reference")
        if isinstance(ref, str):
            # a bare key (no braces) names the loop source directly (§6.6)
            used.add(ref.strip().strip("{}").strip())
        if b.tag == "send_email":
            used.update(_SMTP_SLOTS)
        if b.tag == "code" and isinstance(b.data.get("code"), str):
            # injected parameters (parameter_keys) are Python variables of the code
            used.update(_python_names(b.data["code"]))
    for p in wf.params:
        for field in ("source_parameter_key", "url_parameter_key"):
            v = p.data.get(field)
            if isinstance(v, str):
                used.add(v)
    return used


def _python_names(code: str) -> set[str]:
    import re

    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))


def check(wf):
    rule = sys.modules[__name__]
    if not wf.params:
        return
    used = referenced_names(wf)
    for p in wf.params:
        if p.key is None or p.key in used or p.type == "output":
            continue
        yield wf.diag(
            rule,
            f"parameter '{p.key}' is declared but never used",
            p.path + ("key",),
            help=f"reference it (parameter_keys or {{{{ {p.key} }}}}) or remove it",
        )
