"""What the server teaches: a rule's documentation (``explain_rule``), one block type's fields
at a release (``block_schema``), the rule catalogue and the per-release JSON Schemas (resources).
All of it is read from the rules' modules and the request model (``wflint.model``): nothing is
written twice."""

from __future__ import annotations

import difflib
import json
from typing import Any

from ..model.releases import NEWEST, RELEASES
from .inputs import BadInput


def _fixability(code: str) -> str:
    from ..fix.intent import CODES as UNSAFE
    from ..fix.targeted import FIXABLE_CODES

    if code in UNSAFE:
        return "unsafe"
    return "safe" if code in FIXABLE_CODES or code == "WF013" else "none"


def explain_rule(rule: str) -> dict[str, Any]:
    from ..report.links import rule_doc_url
    from ..report.rule_docs import plain_text
    from ..rules import lookup, registry

    found = lookup(rule)
    if found is None:
        names = [r.code for r in registry().values()] + [r.name for r in registry().values()]
        near = difflib.get_close_matches(rule.strip(), names, n=3, cutoff=0.6)
        raise BadInput("bad_argument", f"unknown rule {rule!r}" + (f"; did you mean {', '.join(near)}?" if near else ""),
                       "a rule is named by its code (WF104) or its name (unknown-field); read wflint://rules for all")
    return {"code": found.code, "name": found.name, "severity": found.severity, "summary": plain_text(found.summary),
            "documentation": plain_text(found.doc), "fix": _fixability(found.code),
            "url": rule_doc_url(found.code, found.name)}


def rule_catalogue() -> str:
    """Every rule: code, name, default severity, what it finds, and whether ``fix`` fixes it (JSON)."""
    from ..report.rule_docs import plain_text
    from ..rules import registry

    rows = [{"code": r.code, "name": r.name, "severity": r.severity, "summary": plain_text(r.summary),
             "fix": _fixability(r.code)} for r in registry().values()]
    return json.dumps({"rules": rows}, indent=1, ensure_ascii=False)


def block_schema(block_type: str, target_version: str | None = None) -> dict[str, Any]:
    from ..model import release
    from ..model import types as t
    from ..model.describe import type_text
    from ..model.releases import UnknownRelease
    from ..model.schema import field_schema

    try:
        rel = release(target_version)
    except UnknownRelease as exc:
        raise BadInput("bad_argument", str(exc), "leave target_version out for the newest") from None
    model = rel.BLOCK_TYPES.get(block_type)
    if model is None:
        near = difflib.get_close_matches(block_type, list(rel.BLOCK_TYPES), n=3)
        raise BadInput("bad_argument", f"release {rel.version} has no block type {block_type!r}"
                       + (f"; did you mean {', '.join(near)}?" if near else ""),
                       f"block types at {rel.version}: {', '.join(rel.BLOCK_TYPES)}")
    common = {f.name for f in rel.COMMON_BLOCK_FIELDS}
    fields = [{"name": "block_type", "type": f"the text {block_type!r}", "required": True, "nullable": False,
               "default": None, "has_default": False, "templated": None, "deprecated": False, "common": True,
               "description": "The kind of block; decides which fields it has.",
               "json_schema": {"const": block_type}}]
    for f in rel.block_fields(block_type):
        has_default = f.default is not t.MISSING
        fields.append({
            "name": f.name, "type": type_text(f.type), "required": f.required, "nullable": f.nullable,
            "default": _json_value(f.default) if has_default else None, "has_default": has_default,
            "templated": f.templated, "deprecated": f.deprecated, "common": f.name in common,
            "description": f.description or f.name.replace("_", " "), "json_schema": field_schema(f),
        })
    return {"block_type": block_type, "release": rel.version, "title": model.title, "description": model.description,
            "notes": list(model.notes), "fields": fields,
            "schemas": f"wflint://schemas/{rel.version}/workflow-definition.schema.json"}


def _json_value(value: Any) -> Any:
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)
    return value


#: the schema documents a release has, as ``wflint schema`` writes them
SCHEMA_FILES = ("workflow-file.schema.json", "workflow-definition.schema.json", "update-body.schema.json")


def schema_document(version: str, file_name: str) -> str:
    from ..model import schema

    return schema.render(schema.documents(version)[file_name])


RELEASES_TEXT = f"modelled releases: {', '.join(RELEASES)} (default {NEWEST})"
