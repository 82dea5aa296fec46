"""Field types in words (``list of strings``, ``one of: a, b``), for the people and agents who
read what the model declares: the language server's hover and completion, and the MCP server's
``block_schema``. Read from the declarations only (``types``); nothing is declared here."""

from __future__ import annotations

from typing import Any

from . import types as t


def type_text(typ: Any) -> str:
    if isinstance(typ, t.Str):
        return "string"
    if isinstance(typ, t.Int):
        bounds = [f">= {typ.ge}"] if typ.ge is not None else []
        bounds += [f"<= {typ.le}"] if typ.le is not None else []
        return "integer" + (f" ({', '.join(bounds)})" if bounds else "")
    if isinstance(typ, t.Num):
        return "number"
    if isinstance(typ, t.Bool):
        return "boolean"
    if isinstance(typ, t.FreeObject):
        return "object"
    if isinstance(typ, t.StrMap):
        return "object of strings"
    if isinstance(typ, t.AnyJSON):
        return "any JSON value"
    if isinstance(typ, t.Enum):
        values = ", ".join(typ.values[:12]) + (", …" if len(typ.values) > 12 else "")
        return f"one of: {values}"
    if isinstance(typ, t.Array):
        return f"list of {type_text(typ.items)}"
    if isinstance(typ, t.Ref):
        from .. import model  # the objects of the newest release: titles do not change between releases

        obj = model.OBJECTS.get(typ.target)
        return f"{obj.title if obj else typ.target} (object)"
    if isinstance(typ, t.Union):
        return " or ".join(type_text(o) for o in typ.options)
    if isinstance(typ, t.Blocks):
        return "list of blocks"
    if isinstance(typ, t.Parameters):
        return "list of parameters"
    return type(typ).__name__
