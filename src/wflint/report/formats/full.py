"""The default, human format: the location line (with the severity in words), the source line with a caret underline,
and a ``help:`` line when there is a suggestion.

A long source line (minified JSON puts a whole file on one) is quoted as a window of
``WINDOW`` characters around the finding, so the output stays proportional to the number of
findings, not to findings times line length. Control characters in names, messages and the
quoted source are shown as escapes, the caret still under the right character.
"""

from __future__ import annotations

from typing import Callable, Sequence

from ...core.diagnostics import Diagnostic
from ..color import PLAIN, Style
from ..safe_text import escape_char, is_unsafe, printable
from ..statistics import problem_summary

#: characters of a source line quoted at most, and how many of them before the finding
WINDOW, BEFORE = 120, 40
_MORE = "…"


def _shown(c: str) -> str:
    return escape_char(c) if is_unsafe(c) else c


def quote(d: Diagnostic, text: str) -> tuple[str, str]:
    """The quoted (windowed, escaped) source line and its caret underline."""
    start = min(max(d.column - 1, 0), len(text))
    if d.end_line == d.line and d.end_column > d.column:
        width = d.end_column - d.column
    else:
        width = max(len(text.rstrip()) - start, 1)
    width = max(1, min(width, max(len(text) - start, 1)))
    first = 0
    if len(text) > WINDOW:
        first = max(0, min(start - BEFORE, len(text) - WINDOW))
    last = min(len(text), first + WINDOW)
    chars = [_shown(c) for c in text[first:last]]
    before = start - first
    # keep tabs so the caret lines up under tab-indented source
    pad = "".join("\t" if c == "\t" else " " * len(shown) for c, shown in zip(text[first:start], chars[:before]))
    carets = sum(len(shown) for shown in chars[before : before + width]) or 1
    line = ("" if first == 0 else _MORE) + "".join(chars) + ("" if last == len(text) else _MORE)
    return line, ("" if first == 0 else " ") + pad + "^" * carets


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
        where = style.path(f"{printable(d.path)}:{d.line}:{d.column}:")
        # the severity in words, as in `concise`: a CI log has no colour to tell errors apart
        out.append(f"{where} {style.code(d.code, d.severity)} {style.severity(f'[{d.name}] {d.severity}:', d.severity)} "
                   f"{printable(d.message)}")
        text = lines(d.path, d.line) if lines else None
        if text is not None:
            gutter = f"{d.line:>4} | "
            source, underline = quote(d, text)
            out.append(style.muted(gutter) + source)
            out.append(style.muted(" " * (len(gutter) - 2) + "| ") + style.caret(underline, d.severity))
        if d.help:
            out.append(f"  {style.help('help:')} {printable(d.help)}")
        out.append("")
    if diags and with_summary:
        out.append(problem_summary(diags))
    return "\n".join(out) + ("\n" if out else "")
