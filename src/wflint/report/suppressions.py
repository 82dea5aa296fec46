"""Suppression comments in YAML files.

``# wflint: disable=WF213,unused-parameter`` at the end of a line silences those rules on that
line; on a line of its own it silences them on the next line. ``# wflint: disable-file=WF104``
anywhere silences them in the whole file. A suppression that silences nothing is reported as
WF900, so stale ones do not pile up. JSON has no comments, so JSON files cannot suppress.
"""

from __future__ import annotations

from ..core.diagnostics import Diagnostic, make
from ..core.diagnostics import Pos
from ..document.source import SourceFile, split_lines
from ..core.patterns import lazy
from ..core.records import MutableRecord, assign, fresh

_COMMENT = lazy(r"(?:^|\s)#\s*wflint:\s*(disable|disable-file)\s*=\s*([A-Za-z0-9_,\- ]+)")


class Suppression(MutableRecord):
    def __init__(self, line: int, col: int, offset: int,
                 #: the line it applies to, or 0 for the whole file
                 target: int, selectors: list[str], used: set[str] = fresh(set)) -> None:
        assign(self, locals())


def find(source: SourceFile) -> list[Suppression]:
    out: list[Suppression] = []
    if "wflint:" not in source.text:
        return out
    lines = split_lines(source.text)  # where positions count lines (not str.splitlines: U+2028 ...)
    for i, line in enumerate(lines, start=1):
        m = _COMMENT.search(line)
        if not m:
            continue
        selectors = [s.strip() for s in m.group(2).split(",") if s.strip()]
        col = m.start(1)
        col = line.rfind("#", 0, col) + 1
        if m.group(1) == "disable-file":
            target = 0
        else:
            own_line = line[: col - 1].strip() == ""
            target = i + 1 if own_line else i
        out.append(Suppression(i, col, source.offset(i, col), target, selectors))
    return out


def apply(source: SourceFile, diags: list[Diagnostic], unused_rule) -> list[Diagnostic]:
    """Drop suppressed diagnostics; add WF900 for suppressions that matched nothing."""
    from ..rules import lookup, matches

    sups = find(source)
    if not sups:
        return diags
    kept: list[Diagnostic] = []
    for d in diags:
        hit = False
        for s in sups:
            if s.target not in (0, d.line):
                continue
            for sel in s.selectors:
                if matches(sel, d.code, d.name):
                    s.used.add(sel)
                    hit = True
        if not hit:
            kept.append(d)
    if unused_rule is not None:
        for s in sups:
            for sel in s.selectors:
                if sel in s.used:
                    continue
                what = "unknown rule" if lookup(sel) is None and sel.upper() != "ALL" and not sel.upper().startswith("WF") else "nothing"
                pos = Pos(s.line, s.col, s.offset)
                kept.append(
                    make(
                        unused_rule.CODE, unused_rule.NAME, unused_rule.SEVERITY,
                        f"suppression of '{sel}' silences {what} here",
                        pos, pos, path=source.path, help="remove it from the comment",
                    )
                )
    return kept
