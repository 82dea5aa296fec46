"""Values as the service's request model holds them, so that two spellings of one request compare
equal.

The service reads a request through its (lax) pydantic models: ``"5"`` and ``5`` are one integer
in an integer field, ``"yes"`` and ``true`` one boolean, and a field written out with its default
value is the same request as the field left out. A diff compares what the service would hold,
never the text: these functions give that, field by field from the release's declarations.
Fields the model does not declare are kept as written (the service refuses or ignores them, and a
change to one is still a change to the request).
"""

from __future__ import annotations

from typing import Any

from ..model import types as t
from ..model.lax import lax_bool, lax_int


def _lax_float(value: Any) -> Any:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return value
    return value


def canonical(value: Any, typ: Any, rel: Any) -> Any:
    """``value`` of a field of type ``typ`` as the model holds it (unchanged when it is not
    one the model accepts: a type error is then a difference worth showing)."""
    if isinstance(typ, t.Int):
        read = lax_int(value)
        return value if read is None or (typ.strict and not isinstance(value, int)) else read
    if isinstance(typ, t.Bool):
        read = lax_bool(value)
        return value if read is None else read
    if isinstance(typ, t.Num):
        return _lax_float(value)
    if isinstance(typ, t.Ref):
        return canonical_object(value, rel.OBJECTS.get(typ.target), rel)
    if isinstance(typ, t.Array) and isinstance(value, list):
        return [canonical(v, typ.items, rel) for v in value]
    return value


def _is_default(value: Any, field: Any) -> bool:
    default = field.default
    if default is t.MISSING:
        return False
    return value == default and type(value) is type(default)


def canonical_object(data: Any, obj: Any, rel: Any, *, extra_fields: tuple = (), skip: frozenset[str] = frozenset()) -> Any:
    """A request object's fields as the model holds them; fields at their default left out.
    ``extra_fields`` are declared fields the object has besides its own (a block's common
    fields); ``skip`` names fields the caller compares in its own way."""
    if not isinstance(data, dict):
        return data
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in skip:
            continue
        field = obj.field(key) if obj is not None else None
        if field is None:
            field = next((f for f in extra_fields if f.name == key), None)
        if field is None:
            out[key] = value
            continue
        read = canonical(value, field.type, rel)
        if not _is_default(read, field):
            out[key] = read
    return out


def sorted_keys(value: Any) -> Any:
    """``value`` with every mapping's keys in sorted order (for output that does not depend on
    the order a file happened to write them in)."""
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value
