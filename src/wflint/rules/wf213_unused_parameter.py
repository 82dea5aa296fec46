"""A declared parameter is referenced nowhere.

**What it checks.** Each declared parameter's key must appear somewhere: a block's
``parameter_keys``, a template (``{{ key }}``, ``{% if key %}``), a ``for_loop`` source, a
context parameter's ``source_parameter_key``, a Bitwarden ``url_parameter_key``, or a
``send_email`` SMTP slot.

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

import re
import sys

CODE = "WF213"
NAME = "unused-parameter"
SEVERITY = "warning"

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SMTP_SLOTS = ("smtp_host", "smtp_port", "smtp_username", "smtp_password")


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)


def referenced_names(wf) -> set[str]:
    """Every name a parameter could be referenced by, collected over the whole request."""
    used: set[str] = set()
    for text in _strings(wf.request):
        if "{{" in text or "{%" in text:
            used.update(_NAME.findall(text))
    for b in wf.all_blocks:
        keys = b.data.get("parameter_keys")
        if isinstance(keys, list):
            used.update(k for k in keys if isinstance(k, str))
        for field in ("loop_over_parameter_key",) + tuple(f"{s}_secret_parameter_key" for s in _SMTP_SLOTS):
            v = b.data.get(field)
            if isinstance(v, str):
                used.add(v)
        ref = b.data.get("loop_variable_reference")
        if isinstance(ref, str):
            used.update(_NAME.findall(ref))
        if b.tag == "send_email":
            used.update(_SMTP_SLOTS)
        if b.tag == "code" and isinstance(b.data.get("code"), str):
            used.update(_NAME.findall(b.data["code"]))
    for p in wf.params:
        for field in ("source_parameter_key", "url_parameter_key"):
            v = p.data.get(field)
            if isinstance(v, str):
                used.add(v)
    return used


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
