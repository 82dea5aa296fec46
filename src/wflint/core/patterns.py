"""Regular expressions compiled on first use.

A pattern compiled when its module is imported costs every process that imports the module,
whether or not it runs the code that matches (0.1 to 1 ms a pattern; one ``wflint check`` of
a file imports about fifty modules with patterns, most of which a given file never needs).
``lazy(pattern, flags)`` stands in for ``re.compile(pattern, flags)`` and compiles on first
use; afterwards ``.match``, ``.sub`` and the rest are plain attribute hits on the instance.
"""

from __future__ import annotations

import re
from typing import Any


class _FromCompiled:
    """An attribute of the compiled pattern. A non-data descriptor: its first read compiles
    and stores the attribute on the instance, which from then on answers without it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = getattr(obj.compiled, self.name)
        return value


class LazyPattern:
    """``re.compile(pattern, flags)``, compiled when it is first used. ``compiled`` is the
    real ``re.Pattern`` (for ``isinstance`` tests or ``re.sub(p, ...)`` style calls)."""

    match, fullmatch, search = _FromCompiled(), _FromCompiled(), _FromCompiled()
    sub, subn, split = _FromCompiled(), _FromCompiled(), _FromCompiled()
    findall, finditer = _FromCompiled(), _FromCompiled()
    pattern, flags, groups, groupindex = _FromCompiled(), _FromCompiled(), _FromCompiled(), _FromCompiled()

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._source = (pattern, flags)

    @property
    def compiled(self) -> re.Pattern[str]:
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self.__dict__["_compiled"] = re.compile(*self._source)
        return compiled

    def __repr__(self) -> str:
        return f"lazy({self._source[0]!r}, {self._source[1]!r})"


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """A pattern compiled on first use (see the module's docstring)."""
    return LazyPattern(pattern, flags)
