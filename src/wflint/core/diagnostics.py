"""The vocabulary every stage speaks: a place in a file (``Pos``), a problem at a place
(``Diagnostic``) and the service's own answer to it (``ServiceVerdict``).

The parser, the unwrapper, the checks and the rules all report ``Diagnostic``s, and every output
format consumes them, so this module sits below all of them and imports nothing of wflint but
its record base (``records``)."""

from __future__ import annotations

from typing import Iterable

from .records import Record, assign, replace, store



class Pos(Record, slots=True):
    """A place in a source file: 1-based line and column, 0-based character offset."""

    def __init__(self, line: int, col: int, offset: int) -> None:
        # going through object.__setattr__ once per field, as a frozen record's generic
        # store does, is slow; filling the slots directly is about 1.7 times faster
        _set_line(self, line)
        _set_col(self, col)
        _set_offset(self, offset)


_set_line, _set_col, _set_offset = Pos.line.__set__, Pos.col.__set__, Pos.offset.__set__  # type: ignore[attr-defined]


SEVERITIES = ("info", "warning", "error")
SEVERITY_RANK = {name: rank for rank, name in enumerate(SEVERITIES)}


class ServiceVerdict(Record, slots=True):
    """How the real service answers the same input at save time.

    ``status`` is the HTTP status, ``detail`` the exact ``detail`` string of a shape-D reply
    (or ``None`` for model errors, which the mock server renders from its own model), and
    ``order`` sorts rejections the way the service's pipeline meets them: the first one wins.
    ``order`` is ``(stage, check, position...)`` where stage is a letter A-G (see the reference
    §6) and check the number within that stage.
    """

    def __init__(self, status: int, detail: str | None, order: tuple = ()) -> None:
        assign(self, locals())


class Diagnostic(Record, slots=True, uncompared=("offset",)):
    """One problem at one place.

    ``line``/``column`` and ``end_line``/``end_column`` are 1-based; the end is exclusive of the
    character after the span, like most editors expect. ``help`` is an optional suggestion
    (``did you mean 'navigation_goal'?``). ``service`` says how the service answers the same
    input at save time when the rule mirrors a save-time check, and is ``None`` for problems
    the service accepts. ``offset`` (internal: the character offset of the start, for stable
    sorting within a line) is left out of equality and hashing. ``related`` holds the findings
    grouped under this one because they have its cause (an export's WF207/WF208 under its
    WF012: ``report.grouping``), each still a whole diagnostic.
    """

    def __init__(self, path: str, line: int, column: int, end_line: int, end_column: int, code: str, name: str,
                 severity: str, message: str, help: str | None = None,  # noqa: A002
                 service: ServiceVerdict | None = None, offset: int = 0,
                 related: tuple["Diagnostic", ...] = ()) -> None:
        # one per finding: the stores spelt out are faster than assign()'s loop (and than the
        # dataclass's __init__); tests/test_records.py holds them equal to the signature
        store(self, "path", path)
        store(self, "line", line)
        store(self, "column", column)
        store(self, "end_line", end_line)
        store(self, "end_column", end_column)
        store(self, "code", code)
        store(self, "name", name)
        store(self, "severity", severity)
        store(self, "message", message)
        store(self, "help", help)
        store(self, "service", service)
        store(self, "offset", offset)
        store(self, "related", related)

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code, self.message)

    def with_path(self, path: str) -> "Diagnostic":
        return replace(self, path=path)


def make(
    code: str,
    name: str,
    severity: str,
    message: str,
    start: Pos,
    end: Pos | None = None,
    *,
    path: str = "",
    help: str | None = None,
    service: ServiceVerdict | None = None,
) -> Diagnostic:
    end = end or start
    return Diagnostic(
        path=path,
        line=start.line,
        column=start.col,
        end_line=end.line,
        end_column=end.col,
        code=code,
        name=name,
        severity=severity,
        message=message,
        help=help,
        service=service,
        offset=start.offset,
    )


def finalize(diags: Iterable[Diagnostic]) -> list[Diagnostic]:
    """Sort by place and code, and drop exact repeats (two rules may meet one fact)."""
    seen: set[tuple] = set()
    out: list[Diagnostic] = []
    for d in sorted(diags, key=lambda d: d.sort_key):
        key = (d.path, d.line, d.column, d.code, d.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    return out


def at_or_above(severity: str, level: str) -> bool:
    return SEVERITY_RANK[severity] >= SEVERITY_RANK[level]
