"""The vocabulary of the declarative request model.

Every request object the service accepts is declared once with these classes. The JSON
Schemas (``wflint schema``), the editor hints, the lint rules that need field knowledge
(unknown keys, templated fields, YAML 1.1 traps) and the mock server's stored forms are all
derived from those declarations, so nothing else in the code base spells a field name twice.

Types are small frozen dataclasses. A field says whether it is required, nullable, its
default and its one-line description; the type carries bounds and enumerations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class _Missing:
    """Marker for "no default": the field is required or simply has none."""

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return "MISSING"


MISSING: Any = _Missing()


# --------------------------------------------------------------------------- value types


@dataclass(frozen=True)
class Str:
    """A string. The service is strict: numbers and booleans are refused."""

    min_length: int | None = None
    max_length: int | None = None
    #: the service strips whitespace before checking ``min_length``
    strip: bool = False


@dataclass(frozen=True)
class Int:
    """An integer. Lax unless ``strict``: ``"5"``, ``5.0`` and ``true`` are accepted."""

    ge: int | None = None
    le: int | None = None
    strict: bool = False


@dataclass(frozen=True)
class Num:
    """A float (lax: numeric strings and booleans are accepted)."""


@dataclass(frozen=True)
class Bool:
    """A boolean (lax: 0/1 and strings such as ``"yes"`` or ``"off"`` are accepted)."""


@dataclass(frozen=True)
class FreeObject:
    """A free-form JSON object (``model``, ``payload``, ``body`` ...)."""


@dataclass(frozen=True)
class StrMap:
    """An object whose values must all be strings (headers, error_code_mapping ...)."""


@dataclass(frozen=True)
class AnyJSON:
    """Any JSON value."""


@dataclass(frozen=True)
class Enum:
    """One of a closed set of strings. ``name`` is the service's enum class name and
    ``members`` the Python member names, used where the service prints ``<Name.MEMBER: 'v'>``."""

    name: str
    values: tuple[str, ...]
    members: tuple[str, ...] = ()
    description: str = ""
    #: the service declares the set as a ``Literal``: failures are ``literal_error``, not ``enum``
    literal: bool = False
    #: (value, since, until) for values that not every modelled release has (see ``releases``)
    spans: tuple[tuple[str, str | None, str | None], ...] = ()

    def span_of(self, value: str) -> tuple[str | None, str | None]:
        for v, since, until in self.spans:
            if v == value:
                return since, until
        return None, None


@dataclass(frozen=True)
class Array:
    items: Any
    min_items: int | None = None


@dataclass(frozen=True)
class Ref:
    """A nested object declared elsewhere, by its ``ObjectModel.name``."""

    target: str


@dataclass(frozen=True)
class Union:
    """One of several types (``data_schema`` is object | array | string)."""

    options: tuple[Any, ...]


@dataclass(frozen=True)
class Blocks:
    """A list of blocks. ``loop`` lists are not discriminated by the service (§5.3)."""

    loop: bool = False


@dataclass(frozen=True)
class Parameters:
    """The definition's list of parameters, discriminated by ``parameter_type``."""


# --------------------------------------------------------------------------- fields and objects


@dataclass(frozen=True)
class Field:
    name: str
    type: Any
    description: str = ""
    required: bool = False
    nullable: bool = False
    default: Any = MISSING
    #: "text": the whole string is rendered as a Jinja template at run time;
    #: "leaves": every string leaf of the (object) value is a template;
    #: "values": every value of a string map is a template.
    templated: str | None = None
    #: YAML 1.1 reads this plain scalar differently and the field accepts the result silently
    yaml11_sensitive: bool = False
    deprecated: bool = False
    #: a label reference (next_block_label, finally_block_label) or parameter-key reference
    reference: str | None = None
    #: the first modelled release that has this field (None: all of them) and the first that
    #: no longer has it (None: still there); see ``releases``. Two declarations of one name
    #: with disjoint spans describe a field that changed (required → optional ...).
    since: str | None = None
    until: str | None = None


@dataclass(frozen=True)
class ObjectModel:
    """A request object: a block type, a parameter type, or a nested object."""

    name: str
    title: str
    description: str
    fields: tuple[Field, ...]
    #: the discriminator value (``block_type`` / ``parameter_type``) when there is one
    tag: str | None = None
    #: the service's model class name, used in loop-child error locations
    class_name: str | None = None
    #: object-level rules, in words, for the documentation
    notes: tuple[str, ...] = ()
    #: extra facts the mock server needs (stored-form hints), free-form
    extra: dict[str, Any] = field(default_factory=dict)
    #: the releases this object belongs to (block and parameter types), as for ``Field``
    since: str | None = None
    until: str | None = None

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
