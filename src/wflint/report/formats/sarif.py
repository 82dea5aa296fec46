"""SARIF 2.1.0 for code scanning (GitHub code scanning, GitLab, IDEs).

Links point at the repository named in ``[project.urls]`` (``report.links``): the tool's
``informationUri`` at the repository, each rule's ``helpUri`` at its section of
``docs/rules.md``, or of the ``docs-url`` page when that setting is given. A relative path is written as a relative URI against ``%SRCROOT%`` (the
checkout, as code scanning reads it); an absolute path as a ``file://`` URI.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence
from urllib.parse import quote

from ...core.diagnostics import Diagnostic
from ..links import repository_url, rule_doc_url
from ..safe_text import without_surrogates

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def artifact_location(path: str) -> dict[str, str]:
    if os.path.isabs(path):
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(path.replace("\\", "/"), safe="/"), "uriBaseId": "%SRCROOT%"}


def _rule(code: str, rule: Any, docs_url: str | None = None) -> dict[str, Any]:
    if rule is None:
        return {"id": code, "name": code, "shortDescription": {"text": code}, "defaultConfiguration": {"level": "warning"}}
    out = {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
    }
    help_uri = rule_doc_url(code, rule.name, docs_url)
    if help_uri:
        out["helpUri"] = help_uri
    return out


def _location(d: Diagnostic) -> dict[str, Any]:
    region = {
        "startLine": max(d.line, 1),
        "startColumn": max(d.column, 1),
        "endLine": max(d.end_line, d.line, 1),
        "endColumn": max(d.end_column, d.column, 1) if d.end_line <= d.line else max(d.end_column, 1),
    }
    return {"physicalLocation": {"artifactLocation": artifact_location(without_surrogates(d.path)), "region": region}}


def render(diags: Sequence[Diagnostic], lines=None, rules: Mapping[str, Any] | None = None, *,
           docs_url: str | None = None) -> str:
    """``rules`` maps a code to its rule (``name``, ``summary``, ``doc``, ``severity``); the
    caller passes the registry, so formats never import the rule layer."""
    from ... import __version__

    used = sorted({d.code for d in diags})
    rules = rules or {}
    rule_index = {code: i for i, code in enumerate(used)}
    results = []
    for d in diags:
        text = d.message + (f" ({d.help})" if d.help else "")
        result = {
            "ruleId": d.code,
            "ruleIndex": rule_index[d.code],
            "level": _LEVEL[d.severity],
            "message": {"text": without_surrogates(text)},
            "locations": [_location(d)],
        }
        if d.related:  # the findings grouped under this one (report.grouping), each where it is
            result["relatedLocations"] = [
                {**_location(r), "id": i, "message": {"text": without_surrogates(f"{r.code} [{r.name}] {r.severity}: {r.message}")}}
                for i, r in enumerate(d.related)]
        results.append(result)
    driver: dict[str, Any] = {"name": "wflint", "version": __version__, "rules": [_rule(code, rules.get(code), docs_url) for code in used]}
    info = repository_url()
    if info:
        driver["informationUri"] = info
    # wflint's columns count characters (code points), not SARIF's default UTF-16 units
    run = {"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}
    doc = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
