"""``path:line:col: CODE [name] message`` — one line each, for editors and problem matchers."""

from __future__ import annotations

from typing import Sequence

from ...diagnostics import Diagnostic


def line(d: Diagnostic) -> str:
    text = f"{d.path}:{d.line}:{d.column}: {d.code} [{d.name}] {d.severity}: {d.message}"
    if d.help:
        text += f" ({d.help})"
    return text


def render(diags: Sequence[Diagnostic], lines=None, rules=None) -> str:
    return "".join(line(d) + "\n" for d in diags)
