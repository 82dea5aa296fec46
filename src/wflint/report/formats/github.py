"""GitHub Actions workflow commands: each diagnostic becomes an annotation on the pull request."""

from __future__ import annotations

from typing import Sequence

from ...core.diagnostics import Diagnostic
from ..safe_text import printable

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(s: str) -> str:
    # the runner reads one command per line: line breaks are %-escaped, other control
    # characters (terminal escapes in the log) and lone surrogates shown as escapes
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return printable(s)


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render(diags: Sequence[Diagnostic], lines=None, rules=None) -> str:
    out = []
    for d in diags:
        props = (
            f"file={_escape_prop(d.path)},line={d.line},col={d.column},"
            f"endLine={d.end_line},endColumn={d.end_column},title={_escape_prop(d.code + ' ' + d.name)}"
        )
        msg = d.message + (f" ({d.help})" if d.help else "")
        out.append(f"::{_LEVEL[d.severity]} {props}::{_escape_data(msg)}\n")
    return "".join(out)
