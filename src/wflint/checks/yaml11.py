"""How YAML 1.1 reads a plain scalar when that is not what its text says.

The service reads YAML files with PyYAML (YAML 1.1): ``no`` is a boolean, ``010`` is 8, ``~`` is
null, ``1e3`` stays a string. WF004, WF102's message, WF502 and ``wflint fix`` ask the same
question of a node, so the answer lives here once.
"""

from __future__ import annotations

from ..core.patterns import lazy


_DECIMAL = lazy(r"[-+]?(?:0|[1-9][0-9]*)")
# what YAML 1.2 and JSON read as a number but YAML 1.1 (PyYAML) keeps as a string
_EXPONENT = lazy(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+")
_BOOL_WORDS = frozenset({"yes", "no", "on", "off"})


_NUMBER_START = frozenset("+-.0123456789")


def may_read_otherwise(node) -> bool:
    """A cheap test of a scalar node: False when ``yaml11_reading`` surely has nothing to say
    (a quoted scalar reads as written; a plain one kept as text can only be a number-looking
    ``1e3``). For walks over every scalar of a file."""
    if node.style is not None or node.raw is None:
        return False
    return node.value.__class__ is not str or node.raw.lstrip()[:1] in _NUMBER_START


def yaml11_reading(node) -> str | None:
    """How YAML 1.1 reads a plain scalar when that differs from its text ("the boolean
    false"), or None. Only for plain (unquoted) YAML scalars."""
    if node is None or node.kind != "scalar" or node.style is not None or node.raw is None:
        return None
    raw, value = node.raw.strip(), node.value
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}" if raw.lower() in _BOOL_WORDS else None
    if value is None:
        return "null" if raw == "~" else None
    if isinstance(value, int):
        return None if _DECIMAL.fullmatch(raw) else f"the number {value}"
    if isinstance(value, float):
        return f"the number {value!r}" if ("_" in raw or ":" in raw) else None
    if isinstance(value, str) and _EXPONENT.fullmatch(raw):
        return f"the string '{raw}', not a number"
    return None
