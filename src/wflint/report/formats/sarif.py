"""SARIF 2.1.0 for code scanning (GitHub code scanning, GitLab, IDEs)."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from ...diagnostics import Diagnostic
from ..safe_text import json_safe

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(diags: Sequence[Diagnostic], lines=None, rules: Mapping[str, Any] | None = None) -> str:
    """``rules`` maps a code to its rule (``name``, ``summary``, ``doc``, ``severity``); the
    caller passes the registry, so formats never import the rule layer."""
    from ... import __version__

    used = sorted({d.code for d in diags})
    rules = rules or {}
    rule_index = {code: i for i, code in enumerate(used)}
    driver_rules = []
    for code in used:
        r = rules.get(code)
        driver_rules.append(
            {
                "id": code,
                "name": r.name if r else code,
                "shortDescription": {"text": r.summary if r else code},
                "fullDescription": {"text": r.doc if r else code},
                "defaultConfiguration": {"level": _LEVEL[r.severity] if r else "warning"},
                "helpUri": f"https://wflint.dev/rules/{code}",
            }
        )
    results = []
    for d in diags:
        text = d.message + (f" ({d.help})" if d.help else "")
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": rule_index[d.code],
                "level": _LEVEL[d.severity],
                "message": {"text": text},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": d.path.replace("\\", "/")},
                            "region": {
                                "startLine": d.line,
                                "startColumn": d.column,
                                "endLine": d.end_line,
                                "endColumn": max(d.end_column, d.column),
                            },
                        }
                    }
                ],
            }
        )
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "wflint", "version": __version__, "informationUri": "https://wflint.dev", "rules": driver_rules}},
                "results": results,
            }
        ],
    }
    return json_safe(json.dumps(doc, indent=2, ensure_ascii=False)) + "\n"
