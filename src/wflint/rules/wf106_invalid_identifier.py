"""A block label or parameter key is not a valid identifier.

**What it checks.** Labels and keys must be Python identifiers: letters, digits and
underscores, not starting with a digit. A parameter key may not contain whitespace.

* Sent as ``json_definition``, an invalid one is refused (422): an error.
* Sent as ``yaml_definition``, the service's sanitizer silently renames it first
  (``open-page`` → ``open_page``) and re-points most, but not all, references: a warning that
  says the new name. References it does not rewrite (branch targets, ``loop_over_parameter_key``,
  SMTP secret keys) are then reported as dangling by their own rules.
* Python keywords (``for``, ``None``) and non-ASCII letters pass the service but cannot be
  used as variables in templates: a warning.

**Why.** Labels and keys become Jinja variable names (``{{ open_page_output }}``); ``-``,
``.`` and ``/`` would be read as operators.

**Bad**::

    - block_type: goto_url
      label: open-page
      url: https://example.com

**Good**::

    - block_type: goto_url
      label: open_page
      url: https://example.com
"""

import keyword
import sys

from ..workflow.sanitizer import sanitize_name
from ..checks.service_checks import block_label_error, parameter_key_error
from .verdicts import model_verdict

CODE = "WF106"
NAME = "invalid-identifier"
SEVERITY = "error"
STAGE = "model"


def _original(wf, path):
    node = wf.node(path)
    return node.value if node is not None and node.kind == "scalar" else None


def check(wf):
    rule = sys.modules[__name__]
    items = [(b.path, b.data.get("label"), "label", block_label_error, "block") for b in wf.all_blocks]
    items += [(p.path, p.data.get("key"), "key", parameter_key_error, "parameter") for p in wf.params]
    for path, value, field, error_fn, fallback in items:
        where = path + (field,)
        original = _original(wf, where) if wf.mode == "yaml" else value
        if not isinstance(original, str) or not isinstance(value, str):
            continue
        if wf.mode == "yaml" and original != value:
            if original.strip() == "" and field == "label":
                continue  # WF107 reports empty labels
            if sanitize_name(original, fallback) != original:
                yield wf.diag(
                    rule,
                    f"{fallback} {field} '{original}' is not a valid identifier; sent as "
                    f"yaml_definition the service silently renames it to '{value}'",
                    where,
                    severity="warning",
                    help=f"rename it to '{value}' yourself so the name you see is the name that is stored",
                )
            continue
        if wf.mode == "json":
            message = error_fn(value)
            if message and not (field == "label" and value.strip() == ""):
                suggestion = sanitize_name(value, fallback)
                yield wf.diag(
                    rule,
                    f"{fallback} {field} '{value}' is not a valid identifier (letters, digits and "
                    f"underscores, not starting with a digit); the service rejects it",
                    where,
                    help=f"rename it to '{suggestion}'",
                    service=model_verdict(wf, where),
                )
                continue
        if value.isidentifier() and (keyword.iskeyword(value) or not value.isascii()):
            why = "is a Python keyword" if keyword.iskeyword(value) else "has non-ASCII letters"
            yield wf.diag(
                rule,
                f"{fallback} {field} '{value}' {why}: the service accepts it, but templates cannot "
                f"refer to it reliably",
                where,
                severity="warning",
                help=f"use a plain ASCII name such as '{sanitize_name(value, fallback)}_'"
                if keyword.iskeyword(value)
                else f"use a plain ASCII name such as '{sanitize_name(value, fallback)}'",
            )
