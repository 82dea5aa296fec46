"""Records: classes of named fields that behave as dataclasses do, without being made by them.

``dataclasses`` compiles each generated method (``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, a frozen class's ``__setattr__`` and ``__delattr__``) from source with ``exec``
as the class is made: about 0.55 ms a class on Python 3.11, 19 ms of every ``wflint check``
process for the 35 its path made. A record's methods are the shared functions below instead.

A record's fields are its ``__init__``'s parameters, in order (``_FIELDS``, read from the
function's code when the class is made), and ``__init__`` stores them with
``assign(self, locals())``, so each field is named once, in the signature. The few classes
made tens of thousands of times a run spell their stores out (the generic loop is slower than
a dataclass's ``__init__``); tests hold those stores equal to ``_FIELDS``.

* ``Record``: a frozen dataclass: equal when of the same class with equal fields, hashed by
  them, assignment refused with ``dataclasses.FrozenInstanceError``.
* ``MutableRecord``: a plain ``@dataclass``: equal the same way, unhashable, assignable.

Both show themselves as ``Name(field=value, ...)`` (``...`` for a record met again inside its
own repr). Class keywords: ``slots=True`` makes the fields the ``__slots__`` (a frozen slotted
record pickles and copies through ``__getstate__``/``__setstate__``, as a dataclass's does);
``uncompared=("name",)`` leaves fields out of equality and hashing (``field(compare=False)``).
A default of ``fresh(list)`` is made anew for each instance (``field(default_factory=list)``).
``eq=False`` compares and hashes by identity (``object``'s ``__eq__`` and ``__hash__``). The
classes made by the ten thousand spell their stores out with ``store`` (``object.__setattr__``,
which a frozen record's own ``__setattr__`` refuses).
"""

from __future__ import annotations

from _thread import get_ident
from operator import attrgetter
from typing import Any, Callable

#: sets a field of a record, frozen or not (what ``assign`` and a spelt-out ``__init__`` call)
store = object.__setattr__


class _Fresh:
    """A default made anew for each instance by ``make`` (see ``fresh``)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make

    def __repr__(self) -> str:  # shown in signatures: help(Config)
        return f"fresh({getattr(self.make, '__qualname__', self.make)})"


def fresh(make: Callable[[], Any]) -> Any:
    """A default made anew by ``make()`` for each instance that is not given the field."""
    return _Fresh(make)


def assign(record: Any, values: dict[str, Any]) -> None:
    """Store ``record``'s fields from its ``__init__``'s ``locals()``."""
    for name in record._FIELDS:
        value = values[name]
        if value.__class__ is _Fresh:
            value = value.make()
        store(record, name, value)


def replace(record: Any, **changes: Any) -> Any:
    """``record`` with ``changes`` (``dataclasses.replace``): a new record of the same class,
    every other field the same object. An unknown name is ``__init__``'s TypeError."""
    values = {name: getattr(record, name) for name in record._FIELDS}
    values.update(changes)
    return record.__class__(**values)


def field_names(record: Any) -> tuple[str, ...]:
    """The fields of a record or record class, in order (``dataclasses.fields``'s names)."""
    return record._FIELDS


def _compared_values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """A function giving the tuple of ``names``' values (a dataclass compares and hashes that)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda record: (one(record),)
    return lambda record: ()


class _RecordType(type):
    """Reads the fields from ``__init__`` and applies the class keywords (see the module)."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], *,
                slots: bool = False, uncompared: tuple[str, ...] = (), eq: bool = True) -> _RecordType:
        init = namespace.get("__init__")
        if not eq:  # compared and hashed by identity, as a dataclass with eq=False
            namespace["__eq__"], namespace["__hash__"] = object.__eq__, object.__hash__
        if init is None and slots:
            raise TypeError(f"{name}: slots=True makes the fields slots, and __init__ declares them")
        if init is not None:
            code = init.__code__
            fields = code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]
            namespace["_FIELDS"] = fields
            if slots:
                namespace["__slots__"] = fields
                # unpickling and copy.copy set slots with setattr, which a frozen record refuses
                namespace.setdefault("__getstate__", _field_values)
                namespace.setdefault("__setstate__", _set_field_values)
        cls = super().__new__(mcls, name, bases, namespace)
        if init is not None or uncompared:
            unknown = set(uncompared) - set(cls._FIELDS)
            if unknown:
                raise TypeError(f"{name}: uncompared names no field: {sorted(unknown)}")
            # a staticmethod: a lambda stored on the class would be bound as a method
            cls._compared = staticmethod(_compared_values(tuple(f for f in cls._FIELDS if f not in uncompared)))
        return cls


def _field_values(self: Any) -> list[Any]:
    return [getattr(self, name) for name in self._FIELDS]


def _set_field_values(self: Any, state: list[Any]) -> None:
    for name, value in zip(self._FIELDS, state):
        store(self, name, value)


_REPR_RUNNING: set[tuple[int, int]] = set()


class _Shown(metaclass=_RecordType):
    """What both flavours share: the fields, the repr, equality by field values."""

    __slots__ = ()
    _FIELDS: tuple[str, ...] = ()
    _compared: Callable[[Any], tuple[Any, ...]] = staticmethod(_compared_values(()))

    def __repr__(self) -> str:
        # a record met again inside its own repr (a view block's parent lists the block among
        # its children) is shown as "...", as a dataclass's reprlib-style guard has it
        key = id(self), get_ident()
        if key in _REPR_RUNNING:
            return "..."
        _REPR_RUNNING.add(key)
        try:
            shown = ", ".join([f"{name}={getattr(self, name)!r}" for name in self._FIELDS])
        finally:
            _REPR_RUNNING.discard(key)
        return f"{self.__class__.__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._compared(self) == self._compared(other)
        return NotImplemented


class Record(_Shown):
    """A frozen record (``@dataclass(frozen=True)``)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._compared(self))

    def __setattr__(self, name: str, value: Any) -> None:
        from dataclasses import FrozenInstanceError  # only when refusing: start-up skips the module

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


class MutableRecord(_Shown):
    """A record whose fields may be assigned (``@dataclass``); unhashable, as a dataclass that
    compares by value and is not frozen is."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]
