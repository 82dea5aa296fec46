"""The vocabulary of the declarative request model.

Every request object the service accepts is declared once with these classes. The JSON
Schemas (``wflint schema``), the editor hints, the lint rules that need field knowledge
(unknown keys, templated fields, YAML 1.1 traps) and the mock server's stored forms are all
derived from those declarations, so nothing else in the code base spells a field name twice.

Types are small immutable values (frozen dataclasses in behaviour). A field says whether it is required, nullable, its
default and its one-line description; the type carries bounds and enumerations.
"""

from __future__ import annotations

from typing import Any

from ..core.records import Record, assign, replace  # noqa: F401 - replace: the declarations' copy-with-changes


class _Missing:
    """Marker for "no default": the field is required or simply has none."""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "MISSING"


MISSING: Any = _Missing()


class _Declared(Record):
    """What the declaration types share: frozen records (``wflint.core.records``), plain classes
    rather than dataclasses: making this module's 15 dataclasses compiled about 90 methods
    from source, 7 ms of every process's start-up. A type's fields are its ``__init__``'s
    parameters, stored with ``assign(self, locals())``."""

    __slots__ = ()


# --------------------------------------------------------------------------- value types


class Str(_Declared):
    """A string. The service is strict: numbers and booleans are refused. ``strip``: the
    service strips whitespace before checking ``min_length``."""

    def __init__(self, min_length: int | None = None, max_length: int | None = None, strip: bool = False) -> None:
        assign(self, locals())


class Int(_Declared):
    """An integer. Lax unless ``strict``: ``"5"``, ``5.0`` and ``true`` are accepted."""

    def __init__(self, ge: int | None = None, le: int | None = None, strict: bool = False) -> None:
        assign(self, locals())


class Num(_Declared):
    """A float (lax: numeric strings and booleans are accepted)."""


class Bool(_Declared):
    """A boolean (lax: 0/1 and strings such as ``"yes"`` or ``"off"`` are accepted)."""


class FreeObject(_Declared):
    """A free-form JSON object (``model``, ``payload``, ``body`` ...)."""


class StrMap(_Declared):
    """An object whose values must all be strings (headers, error_code_mapping ...)."""


class AnyJSON(_Declared):
    """Any JSON value."""


class Enum(_Declared):
    """One of a closed set of strings. ``name`` is the service's enum class name and
    ``members`` the Python member names, used where the service prints ``<Name.MEMBER: 'v'>``.
    ``literal``: the service declares the set as a ``Literal`` (failures are
    ``literal_error``, not ``enum``); ``spans``: (value, since, until) for values that not
    every modelled release has (see ``releases``)."""

    def __init__(self, name: str, values: tuple[str, ...], members: tuple[str, ...] = (), description: str = "",
                 literal: bool = False, spans: tuple[tuple[str, str | None, str | None], ...] = ()) -> None:
        assign(self, locals())

    def span_of(self, value: str) -> tuple[str | None, str | None]:
        for v, since, until in self.spans:
            if v == value:
                return since, until
        return None, None


class Array(_Declared):
    """A list whose items are all of type ``items``."""

    def __init__(self, items: Any, min_items: int | None = None) -> None:
        assign(self, locals())


class Ref(_Declared):
    """A nested object declared elsewhere, by its ``ObjectModel.name``."""

    def __init__(self, target: str) -> None:
        assign(self, locals())


class Union(_Declared):
    """One of several types (``data_schema`` is object | array | string)."""

    def __init__(self, options: tuple[Any, ...]) -> None:
        assign(self, locals())


class Blocks(_Declared):
    """A list of blocks. ``loop`` lists are not discriminated by the service (§5.3)."""

    def __init__(self, loop: bool = False) -> None:
        assign(self, locals())


class Parameters(_Declared):
    """The definition's list of parameters, discriminated by ``parameter_type``."""


# --------------------------------------------------------------------------- fields and objects


class Field(_Declared):
    """One field of a request object.

    ``templated``: "text": the whole string is rendered as a Jinja template at run time;
    "leaves": every string leaf of the (object) value is a template; "values": every value of
    a string map is a template. ``yaml11_sensitive``: YAML 1.1 reads this plain scalar
    differently and the field accepts the result silently. ``reference``: a label reference
    (next_block_label, finally_block_label) or parameter-key reference. ``since``/``until``:
    the first modelled release that has this field (None: all of them) and the first that no
    longer has it (None: still there); see ``releases``. Two declarations of one name with
    disjoint spans describe a field that changed (required → optional ...)."""

    def __init__(self, name: str, type: Any, description: str = "", required: bool = False,  # noqa: A002
                 nullable: bool = False, default: Any = MISSING, templated: str | None = None,
                 yaml11_sensitive: bool = False, deprecated: bool = False, reference: str | None = None,
                 since: str | None = None, until: str | None = None) -> None:
        assign(self, locals())


class ObjectModel(_Declared):
    """A request object: a block type, a parameter type, or a nested object.

    ``tag``: the discriminator value (``block_type`` / ``parameter_type``) when there is one;
    ``class_name``: the service's model class name, used in loop-child error locations;
    ``notes``: object-level rules, in words, for the documentation; ``extra``: facts the mock
    server needs (stored-form hints), free-form; ``since``/``until``: the releases this object
    belongs to (block and parameter types), as for ``Field``."""

    def __init__(self, name: str, title: str, description: str, fields: tuple[Field, ...], tag: str | None = None,
                 class_name: str | None = None, notes: tuple[str, ...] = (), extra: dict[str, Any] | None = None,
                 since: str | None = None, until: str | None = None) -> None:
        extra = {} if extra is None else extra
        assign(self, locals())

    def field(self, name: str) -> Field | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


def F(name: str, type_: Any, description: str = "", **kw: Any) -> Field:
    """Shorthand used by the declaration modules."""
    return Field(name, type_, description, **kw)


def text(name: str, description: str = "", **kw: Any) -> Field:
    """An optional, nullable string field that the service renders as a Jinja template."""
    kw.setdefault("nullable", True)
    kw.setdefault("default", None)
    return Field(name, Str(), description, templated="text", **kw)


def opt_str(name: str, description: str = "", **kw: Any) -> Field:
    """An optional, nullable plain string (not templated)."""
    kw.setdefault("nullable", True)
    kw.setdefault("default", None)
    return Field(name, Str(), description, **kw)


def flag(name: str, default: bool, description: str = "", **kw: Any) -> Field:
    return Field(name, Bool(), description, default=default, **kw)
