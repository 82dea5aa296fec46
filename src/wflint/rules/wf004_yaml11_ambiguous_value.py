"""A plain YAML scalar that the service's YAML 1.1 parser reads as something else than its text.

**What it checks.** On the YAML path the service reads YAML 1.1: ``yes``, ``no``, ``on`` and
``off`` (any case) are booleans, ``~`` is null, ``010`` is the octal number 8, ``0x1F`` is 31,
``1_000`` is 1000 and ``7:30`` is the base-60 number 450, while ``1e3`` stays the *string*
"1e3". ``y`` and ``n`` stay strings. This rule looks at unquoted scalars, keys included, in the
places that take any value and so accept the converted one silently: a workflow parameter's
``default_value`` and free-form objects (``payload``, ``body``, ``data_schema``, ``json_schema``,
``model`` ...). In a field that must be a string the service refuses the converted value
instead; WF102 reports that and explains the YAML 1.1 reading.

**Why.** ``country: no`` in a payload sends ``false``, a ZIP code ``01234`` becomes 668, and an
``on:`` key becomes ``true``: the save succeeds and the workflow works with other data than
written.

**Bad**::

    parameters:
      - {parameter_type: workflow, key: country, workflow_parameter_type: string, default_value: no}

**Good**::

    parameters:
      - {parameter_type: workflow, key: country, workflow_parameter_type: string, default_value: "no"}
"""

import re
import sys

from ..checks.template_sites import objects
from ..checks.yaml11 import may_read_otherwise, yaml11_reading
from ..model.release_view import per_model

CODE = "WF004"
NAME = "yaml11-ambiguous-value"
SEVERITY = "warning"

def check(wf):
    rule = sys.modules[__name__]
    if wf.mode != "yaml" or wf.root is None:
        return
    for path, data, obj in objects(wf):
        for name in _sensitive_fields(wf.release, obj):
            if name not in data:
                continue
            ptype = data.get("workflow_parameter_type") if name == "default_value" else None
            for node, is_key in _scalars(wf.node(path + (name,))):
                reading = yaml11_reading(node)
                if reading is None or not _surprising(node, ptype):
                    continue
                what = "the key" if is_key else ""
                seen = _service_value(node.value, ptype)
                message = f"YAML 1.1 reads {what + ' ' if what else ''}`{node.raw.strip()}` as {reading}"
                if seen is not None:
                    message += f"; the service stores {seen}"
                yield wf.diag(rule, message, (), help=_help(node), start=node.start, end=node.end)


@per_model
def _sensitive_fields(release, obj) -> tuple[str, ...]:
    """The fields of ``obj`` (the common block fields first, for a block) that take any value."""
    fields = (*release.COMMON_BLOCK_FIELDS, *obj.fields) if release.is_block(obj) else obj.fields
    return tuple(f.name for f in fields if f.yaml11_sensitive)


def _scalars(node):
    """(scalar node, is it a key) for every plain scalar at or below ``node``."""
    if node is None:
        return
    stack = [node]
    while stack:
        n = stack.pop()
        if n.kind == "scalar":
            if may_read_otherwise(n):
                yield n, False
        elif n.kind == "map":
            for k, v in reversed(n.pairs):
                stack.append(v)
                if k.kind == "scalar" and may_read_otherwise(k):
                    stack.append(_Key(k))
        elif n.kind == "seq":
            stack.extend(reversed(n.items))
        elif isinstance(n, _Key):
            yield n.node, True


class _Key:
    """Marks a key node on the walk stack."""

    kind = "key"

    def __init__(self, node):
        self.node = node


def _surprising(node, ptype) -> bool:
    """A default of a boolean parameter written ``yes`` is what its author meant; so is
    ``1_000`` or ``0x1F`` for a number parameter, unless octal or base 60 changed the digits."""
    raw = node.raw.strip().lstrip("+-")
    if ptype == "boolean":
        return not isinstance(node.value, bool)
    if ptype in ("integer", "float"):
        return isinstance(node.value, bool) or ":" in raw or bool(re.fullmatch(r"0[0-7_]+", raw))
    return True


def _service_value(value, ptype) -> str | None:
    if ptype == "string" and value is not None:
        return f"the default as the text '{value}'"
    return None


def _help(node) -> str:
    raw = node.raw.strip()
    if isinstance(node.value, bool):
        return f"quote it ('{raw}') for the text, or write {str(node.value).lower()} for the boolean"
    if isinstance(node.value, str):
        return f"write it with a decimal point ({_with_point(raw)}) for the number, or quote it for the text"
    if node.value is None:
        return f"quote it ('{raw}') for the text, or write null if you mean null"
    return f"quote it ('{raw}') for the text, or write {node.value!r} if you mean the number"


def _with_point(raw: str) -> str:
    mantissa, _, exponent = raw.lower().partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    sign = "" if exponent[:1] in "+-" else "+"
    return f"{mantissa}e{sign}{exponent}"
