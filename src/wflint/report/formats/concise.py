"""``path:line:col: CODE [name] message`` — one line each, for editors and problem matchers."""

from __future__ import annotations

from typing import Sequence

from ...diagnostics import Diagnostic
from ..color import PLAIN, Style


def line(d: Diagnostic, style: Style = PLAIN) -> str:
    text = (
        f"{style.path(f'{d.path}:{d.line}:{d.column}:')} {style.code(d.code, d.severity)} [{d.name}] "
        f"{style.severity(d.severity + ':', d.severity)} {d.message}"
    )
    if d.help:
        text += f" ({d.help})"
    return text


def render(diags: Sequence[Diagnostic], lines=None, rules=None, *, style: Style = PLAIN) -> str:
    return "".join(line(d, style) + "\n" for d in diags)
