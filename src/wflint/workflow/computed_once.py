"""``computed_once``: ``functools.cached_property`` without its lock, for the workflow view.

A block's label, a parameter's key, a workflow's labels ... are computed on first read and
stored in the instance, where later reads find them without calling anything. Python 3.11's
``cached_property`` takes a lock on every first read, and the view makes about 70 such reads
a file. Without the lock, two threads reading the same attribute first at once (the language
server's check and request threads can share a document) both compute it and store equal
values: what Python 3.12's ``cached_property`` does too.
"""

from __future__ import annotations

from typing import Any


class computed_once:  # noqa: N801 - used as a decorator, like the functools one
    """A property computed on its first read and then kept in the instance's ``__dict__``
    (which later reads find first: this is a non-data descriptor)."""

    def __init__(self, compute: Any) -> None:
        self.compute = compute
        self.name = compute.__name__
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value
