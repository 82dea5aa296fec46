"""Generate JSON Schemas (2020-12) from the declarative model.

``wflint schema`` writes them to ``schemas/``; ``wflint schema --check`` fails when the
committed files differ from what this module produces. The linter validates against the very
same documents (``checks.schema_findings``), so the schemas editors see and the checks users get cannot
drift apart.

Design choices, each mirroring how the service reads input (reference §1, §5.8):

* every object has ``additionalProperties: true`` because the service drops unknown keys
  silently; the linter reports them as warnings (WF104) from the model, not from the schema;
* lax integers and booleans accept what the service coerces (``"5"``, ``1.0``, ``"off"``), so
  a schema error always means a rejection;
* blocks and parameters are dispatched on their tag with ``if``/``then`` rather than a bare
  ``oneOf``, so an error names the field that is wrong instead of "not valid under any of".
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any, Callable

from .. import model
from . import editor_schema
from . import types as t
from .responses import RESPONSE_OBJECTS
from ..core.patterns import lazy

DIALECT = "https://json-schema.org/draft/2020-12/schema"
BASE_ID = "https://wflint.dev/schemas/"

#: the strings the service (pydantic, lax mode) reads as booleans, compared case-insensitively
BOOL_STRINGS = ("0", "off", "f", "false", "n", "no", "1", "on", "t", "true", "y", "yes")
#: a string the service reads as an integer: optional sign, digits with single underscores,
#: an optional all-zero fraction, surrounding whitespace. The service's parser first skips
#: leading zeros together with any underscores among them, even runs of them and even before a
#: minus sign, so "0__1" reads as 1 and "0-12" as -12 while "1__0" is refused: the three
#: branches are zero, a number after skipped zeros, and a negative number after skipped zeros
#: (all found by the property test against pydantic, and checked exhaustively on short strings).
INT_STRING = (r"^\s*[+-]?0([0_]*0)?(\.0+)?\s*$"
              r"|^\s*[+-]?(0[0_]*)?[1-9][0-9]*(_[0-9]+)*(\.0+)?\s*$"
              r"|^\s*\+?0[0_]*-_?(0|[1-9][0-9]*(_[0-9]+)*)(\.0+)?\s*$")


def _float_string() -> str:
    # The service's float parser reads decimal, exponent and inf/infinity/nan (any case) forms
    # inside optional whitespace; without surrounding whitespace it also drops single
    # underscores between any two characters (``1_0.5``, ``1e_5``, ``i_nf``).
    def grammar(u: str) -> str:
        digits = f"[0-9]({u}[0-9])*"
        mantissa = f"({digits}({u}\\.({u}{digits})?)?|\\.{u}{digits})"
        exponent = f"({u}[eE]{u}([+-]{u})?{digits})?"
        words = "|".join(u.join(f"[{c}{c.upper()}]" for c in w) for w in ("infinity", "inf", "nan"))
        return f"([+-]{u})?({mantissa}{exponent}|{words})"

    return f"^{grammar('_?')}$|^\\s*{grammar('')}\\s*$"


NUMBER_STRING = _float_string()


def _caseless(word: str) -> str:
    """A regex matching ``word`` in any letter case, without inline flags (ECMA regexes in
    editors do not support ``(?i)``)."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


BOOL_STRING = "^(" + "|".join(_caseless(w) for w in BOOL_STRINGS) + ")$"


def type_schema(typ: Any) -> dict[str, Any]:
    """The schema of one value type (without nullability)."""
    if isinstance(typ, t.Str):
        out: dict[str, Any] = {"type": "string"}
        if typ.min_length is not None:
            if typ.strip:
                # the service strips first, so "   " is too short: require a non-space
                out["pattern"] = r"\S"
            else:
                out["minLength"] = typ.min_length
        if typ.max_length is not None:
            out["maxLength"] = typ.max_length
        return out
    if isinstance(typ, t.Int):
        bounded: dict[str, Any] = {"type": "integer"}
        if typ.ge is not None:
            bounded["minimum"] = typ.ge
        if typ.le is not None:
            bounded["maximum"] = typ.le
        if typ.strict:
            return bounded
        return {"anyOf": [bounded, {"type": "string", "pattern": INT_STRING}, {"type": "boolean"}]}
    if isinstance(typ, t.Num):
        return {"anyOf": [{"type": "number"}, {"type": "string", "pattern": NUMBER_STRING}, {"type": "boolean"}]}
    if isinstance(typ, t.Bool):
        return {"anyOf": [{"type": "boolean"}, {"enum": [0, 1]}, {"type": "string", "pattern": BOOL_STRING}]}
    if isinstance(typ, t.FreeObject):
        return {"type": "object"}
    if isinstance(typ, t.StrMap):
        return {"type": "object", "additionalProperties": {"type": "string"}}
    if isinstance(typ, t.AnyJSON):
        return {}
    if isinstance(typ, t.Enum):
        return {"$ref": f"#/$defs/{typ.name}"}
    if isinstance(typ, t.Array):
        out = {"type": "array", "items": type_schema(typ.items)}
        if typ.min_items is not None:
            out["minItems"] = typ.min_items
        return out
    if isinstance(typ, t.Ref):
        return {"$ref": f"#/$defs/{typ.target}"}
    if isinstance(typ, t.Union):
        return {"anyOf": [type_schema(o) if o is not None else {"type": "null"} for o in typ.options]}
    if isinstance(typ, t.Blocks):
        return {"type": "array", "items": {"$ref": "#/$defs/loop_block" if typ.loop else "#/$defs/block"}}
    if isinstance(typ, t.Parameters):
        return {"type": "array", "items": {"$ref": "#/$defs/parameter"}}
    raise TypeError(f"no schema for model type {typ!r}")


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if set(schema) == {"anyOf"}:
        return {"anyOf": [*schema["anyOf"], {"type": "null"}]}
    if "type" in schema and isinstance(schema["type"], str) and len(schema) <= 3 and "$ref" not in schema:
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


def field_schema(f: t.Field) -> dict[str, Any]:
    schema = type_schema(f.type)
    if f.nullable:
        schema = _nullable(schema)
    doc = f.description or f.name.replace("_", " ")
    out: dict[str, Any] = {"title": f.name, **schema, "description": doc}
    md = doc
    if f.templated:
        md += "\n\nRendered as a Jinja template at run time."
    if f.default is not t.MISSING and f.default is not None:
        out["default"] = f.default
        md += f"\n\nDefault: `{json.dumps(f.default)}`."
    if f.deprecated:
        out["deprecated"] = True
        md += "\n\n**Deprecated.**"
    out["markdownDescription"] = md
    return out


def object_schema(obj: t.ObjectModel, extra_fields: tuple[t.Field, ...] = (), tag_key: str | None = None) -> dict[str, Any]:
    fields = extra_fields + obj.fields
    props: dict[str, Any] = {}
    if tag_key and obj.tag:
        props[tag_key] = {"const": obj.tag, "description": f"Discriminator: `{obj.tag}`."}
    for f in fields:
        props[f.name] = field_schema(f)
    required = [f.name for f in fields if f.required]
    md = obj.description
    if obj.notes:
        md += "\n\n" + "\n".join(f"- {n}" for n in obj.notes)
    out: dict[str, Any] = {
        "title": obj.title,
        "description": obj.description,
        "markdownDescription": md,
        "type": "object",
        "properties": props,
        "additionalProperties": True,
    }
    if required:
        out["required"] = required
    return out


def _dispatch(tag_key: str, tags: list[str], prefix: str, require_tag: bool, title: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "title": title,
        "type": "object",
        "properties": {tag_key: {"$ref": f"#/$defs/{'BlockType' if tag_key == 'block_type' else 'ParameterType'}"}},
        "allOf": [
            {
                "if": {"properties": {tag_key: {"const": tag}}, "required": [tag_key]},
                "then": {"$ref": f"#/$defs/{prefix}{tag}"},
            }
            for tag in tags
        ],
    }
    if require_tag:
        out["required"] = [tag_key]
    return out


def _enums_in(typ: Any) -> list[t.Enum]:
    if isinstance(typ, t.Enum):
        return [typ]
    if isinstance(typ, t.Array):
        return _enums_in(typ.items)
    if isinstance(typ, t.Union):
        return [e for o in typ.options for e in _enums_in(o)]
    return []


def _enum_defs(rel: model.Release) -> dict[str, Any]:
    """Every enumeration used by a field, plus the two tag enumerations."""
    found: dict[str, t.Enum] = {}
    objects = [*rel.OBJECTS.values(), *rel.BLOCK_TYPES.values(), *rel.PARAMETER_TYPES.values()]
    for obj in objects:
        for f in (*obj.fields, *rel.COMMON_BLOCK_FIELDS):
            for enum in _enums_in(f.type):
                found.setdefault(enum.name, enum)
    out: dict[str, Any] = {
        "BlockType": {"title": "BlockType", "description": f"The {len(rel.BLOCK_TYPES)} block types.",
                      "enum": list(rel.BLOCK_TYPES)},
        "ParameterType": {"title": "ParameterType", "description": f"The {len(rel.PARAMETER_TYPES)} parameter types.",
                          "enum": list(rel.PARAMETER_TYPES)},
    }
    for name in sorted(found):
        enum = found[name]
        out.setdefault(name, {"title": name, "description": enum.description or name, "enum": list(enum.values)})
    return out


def response_defs() -> dict[str, Any]:
    return {name: object_schema(obj) for name, obj in RESPONSE_OBJECTS.items()}


def all_defs(version: str | None = None) -> dict[str, Any]:
    """Every definition of the schemas of ``version`` (default: the newest modelled release)."""
    return {name: build() for name, build in def_builders(version).items()}


def def_builders(version: str | None = None) -> dict[str, Callable[[], dict[str, Any]]]:
    """``all_defs`` not yet built: each definition's name, in the same order, with a function
    that builds it. The linter builds only the definitions a file's objects lead to."""
    rel = model.release(version)
    builders: dict[str, Callable[[], dict[str, Any]]] = {
        name: partial(_constant, enum) for name, enum in _enum_defs(rel).items()}
    for name, obj in rel.OBJECTS.items():
        if obj.tag is None:
            builders[name] = partial(object_schema, obj)
    for tag, obj in rel.BLOCK_TYPES.items():
        builders[f"block.{tag}"] = partial(object_schema, obj, rel.COMMON_BLOCK_FIELDS, tag_key="block_type")
    for tag, obj in rel.PARAMETER_TYPES.items():
        builders[f"parameter.{tag}"] = partial(object_schema, obj, tag_key="parameter_type")
    builders["block"] = partial(_dispatch, "block_type", list(rel.BLOCK_TYPES), "block.", True, "Block")
    builders["loop_block"] = partial(_loop_block, list(rel.BLOCK_TYPES))
    builders["parameter"] = partial(_dispatch, "parameter_type", list(rel.PARAMETER_TYPES), "parameter.", True,
                                    "Parameter")
    return builders


def _constant(value: dict[str, Any]) -> dict[str, Any]:
    return value


def _loop_block(tags: list[str]) -> dict[str, Any]:
    out = _dispatch("block_type", tags, "block.", False, "Loop body block")
    out["description"] = (
        "A block inside loop_blocks. The service does not require block_type here and guesses "
        "the type when it is missing; wflint warns (WF108)."
    )
    return out


def _referenced(root: str, defs: dict[str, Any]) -> dict[str, Any]:
    """Only the definitions reachable from ``root``, in a stable order."""
    seen: list[str] = []
    stack = [root]
    while stack:
        name = stack.pop()
        if name in seen or name not in defs:
            continue
        seen.append(name)
        text = json.dumps(defs[name])
        for ref in reversed(_REF.findall(text)):
            stack.append(ref)
    return {name: defs[name] for name in defs if name in seen}


_REF = lazy(r'"\$ref": "#/\$defs/([^"]+)"')


def _document(file_name: str, title: str, root_ref: str, description: str, defs: dict[str, Any],
              version: str | None = None) -> dict[str, Any]:
    # the newest release's schemas keep their plain ids; older releases' carry the release
    base = BASE_ID if version is None or version == model.NEWEST else f"{BASE_ID}{version}/"
    suffix = "" if version is None or version == model.NEWEST else f" (service release {version})"
    return {
        "$schema": DIALECT,
        "$id": base + file_name,
        "title": title + suffix,
        "description": description,
        "$ref": f"#/$defs/{root_ref}",
        "$defs": _referenced(root_ref, defs),
    }


def _entry(file_name: str, title: str, description: str, defs: dict[str, Any],
           version: str | None = None) -> dict[str, Any]:
    """A schema for any workflow file: the request, or an update body (``model.editor_schema``)."""
    rel = model.release(version)
    doc = _document(file_name, title, rel.ENVELOPE.name, description, defs, version)
    del doc["$ref"]
    root = editor_schema.either_form(rel.REQUEST.name, rel.ENVELOPE.name)
    return {**{k: doc[k] for k in ("$schema", "$id", "title", "description")}, **root, "$defs": doc["$defs"]}


def documents(version: str | None = None) -> dict[str, dict[str, Any]]:
    """Every generated schema of ``version`` (default: the newest modelled release), by file name."""
    defs = all_defs(version)
    resp_defs = {**defs, **response_defs()}
    rel = model.release(version)
    either = "A workflow file: the create/update request, or an update body holding it (json_definition or yaml_definition)."
    entries = {
        "workflow-file.schema.json": _entry("workflow-file.schema.json", "Workflow file", either, defs, version),
        "workflow-file.editor.schema.json": _entry(
            "workflow-file.editor.schema.json",
            "Workflow file (editor: unknown keys marked)",
            either + " Unlike the other schemas, keys the service does not know are marked as errors: an editor "
            "cannot show the linter's WF104 warning, and a misspelt key is the most common mistake.",
            editor_schema.strict(defs),
            version,
        ),
    }
    return {
        "workflow-definition.schema.json": _document(
            "workflow-definition.schema.json",
            "Workflow definition file",
            rel.REQUEST.name,
            "A workflow create/update request (the json_definition object, or the YAML document "
            "sent as yaml_definition).",
            defs, version,
        ),
        "update-body.schema.json": _document(
            "update-body.schema.json",
            "Workflow update body",
            rel.ENVELOPE.name,
            "The JSON body of POST /v1/workflows/{workflow_permanent_id}: json_definition or yaml_definition.",
            defs, version,
        ),
        "create-script-body.schema.json": _document(
            "create-script-body.schema.json",
            "Create-script body",
            rel.OBJECTS["CreateScriptRequest"].name,
            "The JSON body of POST /v1/scripts.",
            defs, version,
        ),
        "workflow.schema.json": _document(
            "workflow.schema.json",
            "Workflow (response)",
            "WorkflowResponse",
            "The workflow object the service returns from create, update, get and list.",
            resp_defs, version,
        ),
        "script-summary.schema.json": _document(
            "script-summary.schema.json",
            "Script summary (response)",
            "ScriptSummary",
            "The reply of POST /v1/scripts.",
            resp_defs, version,
        ),
    } | entries


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def write(directory: Path, version: str | None = None) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, doc in documents(version).items():
        path = directory / name
        path.write_text(render(doc), encoding="utf-8")
        written.append(path)
    return written


def stale(directory: Path, version: str | None = None) -> list[str]:
    """Names of schema files that are missing or differ from what would be generated."""
    out = []
    for name, doc in documents(version).items():
        path = directory / name
        if not path.exists() or path.read_text(encoding="utf-8") != render(doc):
            out.append(name)
    return out
