"""The service's stored form of a workflow, and the request it came from.

GET and list answer a workflow as the service stores it: ids and timestamps at the top
(``workflow_id``, ``organization_id``, ``workflow_permanent_id``, ``created_at`` ...), an
``output`` parameter per block, ids and timestamps on every parameter, an
``output_parameter`` object on every block, ``parameter_keys`` replaced by the full parameter
objects, ``loop_over_parameter_key`` by a ``loop_over`` object, a context parameter's
``source_parameter_key`` by a ``source`` object, and ids on branch conditions. Teams pull
definitions into git this way (``skyvern workflow get --definition-file`` writes the stored
definition under the request's top-level keys).

``is_stored_form`` recognises it; ``to_request`` gives back the request the service would
store the same way: every field the request model does not know is dropped, and the replaced
fields get their request names back. What to keep comes from the declarative model.
"""

from __future__ import annotations

from typing import Any

from .. import model as M
from ..document.nodes import Node

#: top-level keys only the service writes
SERVER_TOP_KEYS = ("workflow_id", "organization_id", "workflow_permanent_id", "created_at", "modified_at",
                   "deleted_at")


def _stored_definition(defn: Node | None) -> bool:
    if defn is None or defn.kind != "map":
        return False
    for seq_key in ("blocks", "parameters"):
        seq = defn.get(seq_key)
        if seq is None or seq.kind != "seq":
            continue
        for item in seq.items:
            if item.kind != "map":
                continue
            for key, value in item.pairs:
                name = key.value
                if name.__class__ is not str:
                    continue
                # ids only the service writes (an output parameter alone is a request's
                # mistake, WF208), or a reference the service stores as the object it names
                # (loop_over, source, the SMTP slots, a block's parameters), as every
                # release's export carries it
                if name == "output_parameter" or name.endswith("_parameter_id") or _object_reference(key, value):
                    return True
    return False


def _stored_references() -> frozenset[str]:
    names = {"parameters"}
    for model in (*M.BLOCK_TYPES.values(), *M.PARAMETER_TYPES.values()):
        names.update(model.extra.get("stored_replaces", {}).values())
    return frozenset(names)


_STORED_REFERENCES = _stored_references()


def _object_reference(key: Node, value: Node) -> bool:
    if key.value not in _STORED_REFERENCES:
        return False
    if value.kind == "map":
        return "key" in value.keys() and "parameter_type" in value.keys()
    return value.kind == "seq" and bool(value.items) and all(
        i.kind == "map" and "parameter_type" in i.keys() for i in value.items)


def _exported_definition(defn: Node | None) -> bool:
    """The stored definition with the ids taken out, as ``skyvern workflow get
    --definition-file`` writes it: every stored definition key, and the stored head on every
    block (``disable_cache`` on a wait block, ``model: null`` ...), which no author writes."""
    if defn is None or defn.kind != "map":
        return False
    stored_keys = set(M.DEFINITION.extra["stored_keys"]) - set(M.DEFINITION.extra["stored_only_when_set"])
    blocks = defn.get("blocks")
    if not stored_keys <= set(defn.keys()) or blocks is None or blocks.kind != "seq" or not blocks.items:
        return False
    head = set(M.STORED_BLOCK_HEAD) - {"output_parameter"}
    return all(b.kind == "map" and head <= set(b.keys()) for b in blocks.items)


def is_stored_form(root: Node) -> bool:
    """A mapping holding a workflow as the service answers it (or its stored definition, or
    the definition exported from it) that holds something a request does not: converting it
    changes it. (A converted file is not a stored form any more.)"""
    if root.kind != "map":
        return False
    keys = root.keys()
    if "workflow_definition" not in keys and not ("parameters" in keys and "blocks" in keys):
        return False
    defn = root.get("workflow_definition") or root
    if not (any(k in keys for k in SERVER_TOP_KEYS) or _stored_definition(defn) or _exported_definition(defn)):
        return False
    data = root.to_data()
    return to_request(data) != data


def has_output_parameters(stored: Any) -> bool:
    """Whether the stored definition lists output parameters (which a request may not)."""
    defn = stored.get("workflow_definition", stored) if isinstance(stored, dict) else None
    params = defn.get("parameters") if isinstance(defn, dict) else None
    return isinstance(params, list) and any(isinstance(p, dict) and p.get("parameter_type") == "output" for p in params)


def server_field_count(stored: Any, request: Any) -> int:
    """How many values the conversion of ``stored`` into ``request`` dropped (for messages)."""
    return _count(stored) - _count(request)


def _count(value: Any) -> int:
    if isinstance(value, dict):
        return len(value) + sum(_count(v) for v in value.values())
    if isinstance(value, list):
        return sum(_count(v) for v in value)
    return 0


def server_key_offsets(root: Node) -> list[int]:
    """The offsets of the keys in ``root`` (a stored form) that its request does not have:
    the server-written ones, and every key of an item the conversion drops."""
    out: list[int] = []
    _dropped_keys(root, to_request(root.to_data()), out)
    return out


def _dropped_keys(node: Node, target: Any, out: list[int]) -> None:
    if node.kind == "map":
        for k, v in node.pairs:
            if isinstance(target, dict) and k.value in target:
                _dropped_keys(v, target[k.value], out)
            else:
                out.append(k.start.offset)
                _dropped_keys(v, None, out)
    elif node.kind == "seq":
        kept = list(target) if isinstance(target, list) else []
        for item in node.items:
            match = next((t for t in kept if _same_item(item, t)), None)
            if match is not None:
                kept.remove(match)
            _dropped_keys(item, match, out)


def _same_item(item: Node, target: Any) -> bool:
    if item.kind != "map" or not isinstance(target, dict):
        return item.kind != "map" and not isinstance(target, dict)
    for name in ("label", "key"):
        if name in target:
            node = item.get(name)
            return node is not None and node.value == target[name]
    return True


#: values the service writes itself when the request leaves a field out (null, or absent):
#: §2.2 (null stored as false / 2 on create) and §6.6 (what the conversion fills in); a request
#: written by a person leaves them out, and saving it gives the same stored definition
FILLED_IN: dict[str, dict[str, Any]] = {
    "request": {"mask_secrets": False, "enable_self_healing": False, "code_version": 2},
    "validation": {"max_steps_per_run": 2},
    "action": {"max_steps_per_run": 1, "complete_verification": False},
    "extraction": {"complete_verification": False},
    "goto_url": {"complete_verification": False},
    "file_download": {"complete_on_download": True, "complete_verification": True,
                      "include_action_history_in_verification": True},
}
#: fields the service rebuilds on every save whatever the request says (§6.6: code steps)
REBUILT: dict[str, tuple[str, ...]] = {"code": ("steps",)}


#: the request's nested objects whose fields all have defaults (a null in them is the
#: service's, not the author's); free-form values (schemas, payloads) are never touched
NESTED_OBJECTS = ("condition", "criteria", "retry_policy", "browser_settings", "proxy_location")


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        # a GeoTarget proxy_location is stored normalised, isISP false included
        return {k: _without_nulls(v) if k in NESTED_OBJECTS or k == "retry_on" else v
                for k, v in value.items() if v is not None and not (k == "isISP" and v is False)}
    if isinstance(value, list):
        return [_without_nulls(v) if isinstance(v, dict) else v for v in value]
    return value


def _as_written(obj: dict[str, Any], model: M.ObjectModel, filled: dict[str, Any],
                keep: tuple[str, ...] = ()) -> dict[str, Any]:
    """``obj`` without what its author did not write: a value equal to the field's default,
    a null, or a value the service fills in itself. Required fields (and ``keep``) stay."""
    fields = {f.name: f for f in model.fields}
    if M.NEWEST_RELEASE.is_block(model):
        fields.update((f.name, f) for f in M.NEWEST_RELEASE.COMMON_BLOCK_FIELDS)
    out = {}
    for k, v in obj.items():
        f = fields.get(k) if isinstance(k, str) else None
        if f is not None and not f.required and k not in keep:
            if v is None or (f.default is not M.types.MISSING and _equal(v, f.default)):
                continue
            if k in filled and _equal(v, filled[k]):
                continue
        out[k] = _without_nulls(v) if k in NESTED_OBJECTS and isinstance(v, dict) else v
    return out


def _equal(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def to_request(data: Any) -> Any:
    """The create/update request for a stored workflow (plain data in, plain data out), as a
    person would write it: only what the request model knows, no ids or timestamps, and
    nothing the service would write itself (``_as_written``), the order of keys kept."""
    if not isinstance(data, dict):
        return data
    if "workflow_definition" not in data and "blocks" in data:
        return _definition(data)
    request_keys = M.known_keys(M.REQUEST)
    out = {k: v for k, v in data.items() if k in request_keys}
    out = _as_written(out, M.REQUEST, FILLED_IN["request"])
    if isinstance(out.get("workflow_definition"), dict):
        out["workflow_definition"] = _definition(out["workflow_definition"])
    return out


def _definition(defn: dict[str, Any]) -> dict[str, Any]:
    keys = M.known_keys(M.DEFINITION)
    # parameters and blocks: what every request spells out, empty or not
    out = _as_written({k: v for k, v in defn.items() if k in keys}, M.DEFINITION, {}, keep=("parameters", "blocks"))
    params = out.get("parameters")
    if isinstance(params, list):
        out["parameters"] = [_parameter(p) for p in params
                             if not (isinstance(p, dict) and p.get("parameter_type") == "output")]
        out["parameters"] = [p for p in out["parameters"] if not _added_by_service(p)]
    if isinstance(out.get("blocks"), list):
        out["blocks"] = [_block(b) for b in out["blocks"]]
    return out


def _added_by_service(p: Any) -> bool:
    # the platform SMTP secrets the service adds for a send_email block (and its placeholders)
    return isinstance(p, dict) and p.get("parameter_type") == "aws_secret" and (
        str(p.get("aws_key", "")).startswith("UNUSED_") or str(p.get("description", "")).startswith("Skyvern platform SMTP"))


def _key_of(value: Any) -> Any:
    return value.get("key") if isinstance(value, dict) else value


def _inverse_replaces(model: M.ObjectModel) -> dict[str, str]:
    return {stored: request for request, stored in model.extra.get("stored_replaces", {}).items()}


def _request_fields(obj: dict[str, Any], model: M.ObjectModel) -> dict[str, Any]:
    """The fields of a stored block or parameter that its request model knows, the replaced
    ones under their request names (a null or the service's own placeholder is omitted)."""
    replaced = _inverse_replaces(model)
    keys = M.known_keys(model)
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if k in replaced:
            if v is not None and not _added_by_service(v):
                out[replaced[k]] = _key_of(v)
        elif k == "parameters" and "parameter_keys" in keys:
            out["parameter_keys"] = [_key_of(p) for p in v or []]
        elif k in keys:
            out[k] = v
    return out


def _parameter(p: Any) -> Any:
    model = M.PARAMETER_TYPES.get(_tag(p, "parameter_type"))
    return p if model is None else _as_written(_request_fields(p, model), model, {})


def _block(b: Any) -> Any:
    model = M.BLOCK_TYPES.get(_tag(b, "block_type"))
    if model is None:
        return b
    tag = b.get("block_type")
    out = _as_written(_request_fields(b, model), model, FILLED_IN.get(tag, {}))
    for rebuilt in REBUILT.get(tag, ()):
        out.pop(rebuilt, None)
    if isinstance(out.get("loop_blocks"), list):
        out["loop_blocks"] = [_block(child) for child in out["loop_blocks"]]
    if isinstance(out.get("branch_conditions"), list):
        out["branch_conditions"] = [_branch(c) for c in out["branch_conditions"]]
    return out


def _branch(c: Any) -> Any:
    """A stored branch condition as written: no id, no nulls, no ``is_default: false``."""
    if not isinstance(c, dict):
        return c
    out = {k: v for k, v in c.items() if k != "id" and v is not None and not (k == "is_default" and v is False)}
    criteria = out.get("criteria")
    if isinstance(criteria, dict):
        out["criteria"] = {k: v for k, v in criteria.items() if v is not None}
    return out


def _tag(obj: Any, key: str) -> str | None:
    """The discriminator of an item, when it is one (an edited file may hold any value there)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None
