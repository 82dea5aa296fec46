"""How the service's request model (pydantic, lax mode) reads booleans, for rules that must
decide what a value *means* to the service before judging it."""

from __future__ import annotations

from typing import Any

from .schema import BOOL_STRINGS, INT_STRING
from ..core.patterns import lazy

_TRUE = frozenset(BOOL_STRINGS[6:])
_FALSE = frozenset(BOOL_STRINGS[:6])


def lax_bool(value: Any) -> bool | None:
    """True/False as the service reads ``value``, or None when it is not a boolean at all
    (a type error another rule reports)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    return None



_INT_STRING = lazy(INT_STRING)


def lax_int(value: Any) -> int | None:
    """The integer the service reads from ``value`` (``"5"``, ``5.0``, ``true``, ``"1_000"``),
    or None when it is not one (a type error another rule reports)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_STRING.match(value):
        text = value.strip().split(".")[0]  # any fraction is all zeros
        sign = text[0] if text[0] in "+-" else ""
        # the parser skips leading zeros and underscores, even before a minus sign: "0__1" is 1,
        # "0-12" is -12
        digits = text[len(sign):].lstrip("0_")
        if digits.startswith("-"):
            sign, digits = "-", digits[1:]
        return int(sign + (digits.replace("_", "") or "0"))
    return None
