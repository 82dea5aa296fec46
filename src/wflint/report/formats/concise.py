"""``path:line:col: CODE [name] message`` — one line each, for editors and problem matchers."""

from __future__ import annotations

from typing import Sequence

from ...core.diagnostics import Diagnostic
from ..color import PLAIN, Style
from ..safe_text import printable


def line(d: Diagnostic, style: Style = PLAIN) -> str:
    """One line, always: control characters and line breaks in names and messages are escaped
    (a problem matcher must never see a forged line, a terminal never an escape sequence)."""
    text = (
        f"{style.path(f'{printable(d.path)}:{d.line}:{d.column}:')} {style.code(d.code, d.severity)} [{d.name}] "
        f"{style.severity(d.severity + ':', d.severity)} {printable(d.message)}"
    )
    if d.help:
        text += f" ({printable(d.help)})"
    return text


def render(diags: Sequence[Diagnostic], lines=None, rules=None, *, style: Style = PLAIN) -> str:
    return "".join(line(d, style) + "\n" for d in diags)
