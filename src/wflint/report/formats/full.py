"""The default, human format: the location line, the source line with a caret underline,
and a ``help:`` line when there is a suggestion."""

from __future__ import annotations

from typing import Callable, Sequence

from ...diagnostics import Diagnostic


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


def render(diags: Sequence[Diagnostic], lines: Callable[[str, int], "str | None"] | None = None, rules=None) -> str:
    out: list[str] = []
    for d in diags:
        out.append(f"{d.path}:{d.line}:{d.column}: {d.code} [{d.name}] {d.message}")
        text = lines(d.path, d.line) if lines else None
        if text is not None:
            gutter = f"{d.line:>4} | "
            out.append(gutter + text)
            out.append(" " * (len(gutter) - 2) + "| " + _underline(d, text))
        if d.help:
            out.append(f"  help: {d.help}")
        out.append("")
    if diags:
        counts = {s: sum(1 for d in diags if d.severity == s) for s in ("error", "warning", "info")}
        summary = ", ".join(f"{n} {s}{'s' if n != 1 else ''}" for s, n in counts.items() if n)
        out.append(f"Found {len(diags)} problem{'s' if len(diags) != 1 else ''} ({summary}).")
    return "\n".join(out) + ("\n" if out else "")
