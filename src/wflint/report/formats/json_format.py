"""A JSON array of diagnostics with 1-based positions, for scripts and other tools."""

from __future__ import annotations

import json
from typing import Sequence

from ...core.diagnostics import Diagnostic
from ..links import rule_doc_url
from ..safe_text import json_safe


def as_dict(d: Diagnostic, docs_url: str | None = None) -> dict:
    out = {
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "end_line": d.end_line,
        "end_column": d.end_column,
        "code": d.code,
        "name": d.name,
        "severity": d.severity,
        "message": d.message,
    }
    if d.help:
        out["help"] = d.help
    if d.service is not None:
        out["service_status"] = d.service.status
    url = rule_doc_url(d.code, d.name, docs_url)
    if url:
        out["url"] = url  # the rule's documentation, as ruff's json output links it
    if d.related:  # the findings grouped under this one (report.grouping), each whole
        out["related"] = [as_dict(r, docs_url) for r in d.related]
    return out


def render(diags: Sequence[Diagnostic], lines=None, rules=None, *, docs_url: str | None = None) -> str:
    # lone surrogates (a \ud800 escape in the input, an undecodable byte in a file name) stay
    # JSON escapes: the output is valid UTF-8 whatever the input
    return json_safe(json.dumps([as_dict(d, docs_url) for d in diags], indent=2, ensure_ascii=False)) + "\n"
