"""How the service's request model (pydantic, lax mode) reads booleans, for rules that must
decide what a value *means* to the service before judging it."""

from __future__ import annotations

import re
from typing import Any

from .schema import BOOL_STRINGS, INT_STRING

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



_INT_STRING = re.compile(INT_STRING)


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
        text = value.strip().replace("_", "").split(".")[0]  # any fraction is all zeros
        minus = text.find("-", 1)
        return int(text[minus:] if minus > 0 else text)  # "0-12": the parser skips leading zeros
    return None
