"""The diff as JSON: every fact the other formats show, for tools (a list, one object a file)."""

from __future__ import annotations

import json
from typing import Any

from ..report.safe_text import json_safe
from . import show
from .changes import FileDiff
from .structure import ABSENT, FieldChange


def _value(v: Any) -> Any:
    return None if v is ABSENT else v


def _field(f: FieldChange) -> dict[str, Any]:
    out = {"field": f.path, "old": _value(f.old), "new": _value(f.new), "old_set": f.old is not ABSENT,
           "new_set": f.new is not ABSENT}
    pieces = show.as_words(f)
    if pieces is not None:
        out["words"] = [{"kind": p.kind, "text": p.text} for p in pieces]
    return out


def _diag(d: Any) -> dict[str, Any]:
    return {"code": d.code, "name": d.name, "severity": d.severity, "message": d.message, "path": d.path,
            "line": d.line, "column": d.column}


def file_object(d: FileDiff) -> dict[str, Any]:
    s = d.structure
    out: dict[str, Any] = {
        "old_path": d.old_path, "new_path": d.new_path, "status": d.status, "formatting": d.formatting,
        "tested_path_changed": d.tested_path_changed, "test_file": d.test_file,
        "cases": [{"name": c.name, "changed": c.changed, "path_changed": c.path_changed,
                   "status_changed": c.status_changed, "outputs_changed": c.changed_outputs if c.outputs_changed else [],
                   "old": {"path": c.old.path, "status": c.old.status, "passed": c.old.passed, "error": c.old.error},
                   "new": {"path": c.new.path, "status": c.new.status, "passed": c.new.passed, "error": c.new.error}}
                  for c in d.cases],
        "problems": d.problems,
    }
    if s is not None:
        out["blocks"] = [{"label": b.label, "status": b.status, "block_type": b.block_type, "renamed_from": b.renamed_from,
                          "moved": b.moved, "fields": [_field(f) for f in b.fields]} for b in s.changed_blocks]
        out["parameters"] = [{"key": p.key, "status": p.status, "old_type": p.old_type, "new_type": p.new_type,
                              "retyped": p.retyped, "renamed_from": p.renamed_from, "fields": [_field(f) for f in p.fields]} for p in s.changed_params]
        out["edges"] = ([{"change": "added", **_edge(e)} for e in s.edges_added]
                        + [{"change": "removed", **_edge(e)} for e in s.edges_removed])
        out["settings"] = [_field(f) for f in s.settings]
    out["dangling"] = [{"block": x.where, "field": x.field, "name": x.name, "why": x.why} for x in d.dangling]
    out["findings_introduced"] = [_diag(x) for x in d.introduced]
    out["findings_fixed"] = [_diag(x) for x in d.fixed]
    return out


def _edge(e: Any) -> dict[str, Any]:
    return {"scope": e.scope, "source": e.source, "target": e.target, "via": e.via, "detail": e.detail}


def render(diffs: list[FileDiff], release: str) -> str:
    doc = {"target_version": release, "files": [file_object(d) for d in diffs]}
    return json_safe(json.dumps(doc, ensure_ascii=False, indent=2, default=str)) + "\n"
