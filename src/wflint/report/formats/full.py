"""The default, human format: the location line, the source line with a caret underline,
and a ``help:`` line when there is a suggestion."""

from __future__ import annotations

from typing import Callable, Sequence

from ...diagnostics import Diagnostic
from ..color import PLAIN, Style
from ..statistics import problem_summary


def _underline(d: Diagnostic, text: str) -> str:
    start = max(d.column - 1, 0)
    if d.end_line == d.line and d.end_column > d.column:
        width = d.end_column - d.column
    else:
        width = max(len(text.rstrip()) - start, 1)
    width = max(1, min(width, max(len(text) - start, 1)))
    # keep tabs so the caret lines up under tab-indented source
    pad = "".join(c if c == "\t" else " " for c in text[:start])
    return pad + "^" * width


def render(
    diags: Sequence[Diagnostic],
    lines: Callable[[str, int], "str | None"] | None = None,
    rules=None,
    *,
    style: Style = PLAIN,
    with_summary: bool = True,
) -> str:
    out: list[str] = []
    for d in diags:
        where = style.path(f"{d.path}:{d.line}:{d.column}:")
        out.append(f"{where} {style.code(d.code, d.severity)} {style.severity(f'[{d.name}]', d.severity)} {d.message}")
        text = lines(d.path, d.line) if lines else None
        if text is not None:
            gutter = f"{d.line:>4} | "
            out.append(style.muted(gutter) + text)
            out.append(style.muted(" " * (len(gutter) - 2) + "| ") + style.caret(_underline(d, text), d.severity))
        if d.help:
            out.append(f"  {style.help('help:')} {d.help}")
        out.append("")
    if diags and with_summary:
        out.append(problem_summary(diags))
    return "\n".join(out) + ("\n" if out else "")
