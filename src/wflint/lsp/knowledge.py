"""What the model says about the object at a place of a workflow: its fields, their types,
defaults and descriptions, for hover and completion. Nothing here is declared twice: it is all
read from ``wflint.model`` (the discriminators ``block_type`` and ``parameter_type``, which are
not fields there, get a field-shaped description built from the model's tags)."""

from __future__ import annotations

from typing import Any

from .. import model
from ..model import types as t
from ..model.describe import type_text
from ..checks.template_sites import objects
from ..workflow.view import Workflow

def _discriminators(release: model.Release) -> tuple[t.Field, t.Field]:
    """``block_type`` and ``parameter_type`` as fields, with the release's tags."""
    return (t.Field("block_type", t.Enum("BlockType", tuple(release.BLOCK_TYPES)),
                    "The kind of block; decides which fields it has.", required=True),
            t.Field("parameter_type", t.Enum("ParameterType", tuple(release.PARAMETER_TYPES)),
                    "The kind of parameter; decides which fields it has.", required=True))


def object_at(wf: Workflow, path: tuple[Any, ...]) -> tuple[str, str | None, tuple[t.Field, ...]] | None:
    """(what, tag, fields) of the mapping at ``path``: ``what`` is "block", "parameter" or
    "object". A block or parameter whose type is not (yet) known gets the fields every one has
    and its discriminator."""
    release = wf.release
    block_type, parameter_type = _discriminators(release)
    for b in wf.all_blocks:
        if b.path == path:
            if b.tag is None or b.tag not in release.BLOCK_TYPES:
                return "block", None, (block_type, *release.COMMON_BLOCK_FIELDS)
            return "block", b.tag, (block_type, *release.block_fields(b.tag))
    for p in wf.params:
        if p.path == path:
            obj = release.PARAMETER_TYPES.get(p.type or "")
            return "parameter", p.type if obj else None, (parameter_type, *(obj.fields if obj else ()))
    for obj_path, _data, obj in objects(wf):
        if obj_path == path:
            return "object", None, obj.fields
    return None


def field_of(wf: Workflow, path: tuple[Any, ...]) -> t.Field | None:
    """The declaration of the key at ``path`` (its last part), if the model knows it."""
    if not path or not isinstance(path[-1], str):
        return None
    found = object_at(wf, path[:-1])
    if found is None:
        return None
    return next((f for f in found[2] if f.name == path[-1]), None)


def field_markdown(f: t.Field, owner: str | None = None) -> str:
    head = f"**{f.name}**" + (f" ({owner})" if owner else "")
    facts = [f"type: {type_text(f.type)}" + (" or null" if f.nullable else "")]
    facts.append("required" if f.required else "optional")
    if f.default is not t.MISSING:
        facts.append(f"default: `{_json(f.default)}`")
    if f.templated:
        facts.append("rendered as a Jinja template")
    if f.deprecated:
        facts.append("deprecated")
    out = [head, "", " · ".join(facts)]
    if f.description:
        out += ["", f.description]
    return "\n".join(out)


def _json(value: Any) -> str:
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def owner_name(what: str, tag: str | None) -> str | None:
    if what == "block":
        return f"{tag} block" if tag else "block"
    if what == "parameter":
        return f"{tag} parameter" if tag else "parameter"
    return None
