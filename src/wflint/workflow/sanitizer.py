"""The service's YAML-path auto-sanitizer (reference §8.2), reproduced on plain data.

A definition sent as ``yaml_definition`` is rewritten before validation: invalid or duplicate
block labels and parameter keys are renamed, and references to them are re-pointed, but not
all of them (§8.3). The linter runs the same rewrite so that it judges the definition the
service will actually see, and tells the author what was renamed (WF106, WF201); the mock
server runs it to store what the service stores.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any, Callable

_NOT_IDENT = re.compile(r"[^A-Za-z0-9_]")
_UNDERSCORES = re.compile(r"_+")


def sanitize_name(name: str, fallback: str) -> str:
    """``open-page`` → ``open_page``, ``1st`` → ``_1st``, ``café`` → ``caf``, ``---`` → fallback."""
    out = _UNDERSCORES.sub("_", _NOT_IDENT.sub("_", name)).strip("_")
    if out and out[0].isdigit():
        out = "_" + out
    return out or fallback


def _ref_pattern(old: str) -> re.Pattern[str]:
    # ``{{``, optional whitespace, the exact name, then anything that cannot continue an
    # identifier (or the end). ``{% if old %}`` and ``default(old)`` are deliberately missed,
    # as the service misses them.
    return re.compile(r"\{\{(\s*)" + re.escape(old) + r"(?![A-Za-z0-9_])")


def rewrite_refs(text: str, old: str, new: str) -> str:
    return _ref_pattern(old).sub(lambda m: "{{" + m.group(1) + new, text)


@dataclass
class Sanitized:
    request: dict[str, Any]
    #: original label → new label, in the order they were met (depth-first)
    label_map: dict[str, str] = field(default_factory=dict)
    key_map: dict[str, str] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return bool(self.label_map or self.key_map)


def _walk_blocks(blocks: Any, visit: Callable[[dict[str, Any]], None]) -> None:
    if not isinstance(blocks, list):
        return
    for block in blocks:
        if isinstance(block, dict):
            visit(block)
            _walk_blocks(block.get("loop_blocks"), visit)


def _unique_names(items: list[dict[str, Any]], field_name: str, fallback: str) -> dict[str, str]:
    seen: set[str] = set()
    renames: dict[str, str] = {}
    for item in items:
        old = item.get(field_name)
        if not isinstance(old, str):
            continue
        new = base = sanitize_name(old, fallback)
        n = 2
        while new in seen:
            new = f"{base}_{n}"
            n += 1
        seen.add(new)
        if new != old:
            item[field_name] = new
            renames[old] = new  # a later duplicate of the same original overwrites the entry
    return renames


def _named_items(definition: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The blocks (nested ones included) and the parameters of a definition."""
    blocks: list[dict[str, Any]] = []
    _walk_blocks(definition.get("blocks"), blocks.append)
    params = [p for p in definition.get("parameters") or [] if isinstance(p, dict)] if isinstance(definition.get("parameters"), list) else []
    return blocks, params


def _renames_needed(request: dict[str, Any]) -> bool:
    """Would ``sanitize`` rename a label or a key? (Computed on shallow copies: read-only.)"""
    definition = request.get("workflow_definition")
    if not isinstance(definition, dict):
        return False
    blocks, params = _named_items(definition)
    return bool(_unique_names([{"label": b.get("label")} for b in blocks], "label", "block")
                or _unique_names([{"key": p.get("key")} for p in params], "key", "parameter"))


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """Apply ``fn`` to every string value at any depth (dictionary keys are left alone)."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    return value


def sanitize(request: dict[str, Any], *, share_unchanged: bool = False) -> Sanitized:
    """Return a rewritten deep copy of a top-level request, with the rename maps. With
    ``share_unchanged`` (a caller that owns ``request`` and only reads the result), a request
    the sanitizer would not change is returned itself: most are, and the copy was a tenth of
    a check."""
    if share_unchanged and not _renames_needed(request):
        return Sanitized(request)
    request = copy.deepcopy(request)
    definition = request.get("workflow_definition")
    if not isinstance(definition, dict):
        return Sanitized(request)
    blocks, params = _named_items(definition)

    label_map = _unique_names(blocks, "label", "block")
    key_map = _unique_names(params, "key", "parameter")
    if not label_map and not key_map:
        return Sanitized(request, label_map, key_map)

    def rewrite_blocks(fn: Callable[[str], str]) -> None:
        if isinstance(definition.get("blocks"), list):
            definition["blocks"] = _map_strings(definition["blocks"], fn)
        if isinstance(definition.get("workflow_system_prompt"), str):
            definition["workflow_system_prompt"] = fn(definition["workflow_system_prompt"])

    def rewrite_params(fn: Callable[[str], str]) -> None:
        if isinstance(definition.get("parameters"), list):
            definition["parameters"] = _map_strings(definition["parameters"], fn)

    for old, new in label_map.items():
        def refs(s: str, old: str = old, new: str = new) -> str:
            return rewrite_refs(rewrite_refs(s, old + "_output", new + "_output"), old, new)

        rewrite_blocks(refs)
        rewrite_params(lambda s, refs=refs, o=old + "_output", n=new + "_output": n if s == o else refs(s))

    for old, new in key_map.items():
        rewrite_blocks(lambda s, o=old, n=new: rewrite_refs(s, o, n))
        rewrite_params(lambda s, o=old, n=new: n if s == o else rewrite_refs(s, o, n))

    mapping = definition.get("error_code_mapping")
    if isinstance(mapping, dict):
        subs = [(o + "_output", n + "_output") for o, n in label_map.items()]
        subs += list(label_map.items()) + list(key_map.items())
        definition["error_code_mapping"] = {
            _rewrite_all(k, subs) if isinstance(k, str) else k: _rewrite_all(v, subs) if isinstance(v, str) else v
            for k, v in mapping.items()
        }

    def fix_block_refs(block: dict[str, Any]) -> None:
        keys = block.get("parameter_keys")
        if isinstance(keys, list):
            block["parameter_keys"] = [key_map.get(k, k) if isinstance(k, str) else k for k in keys]
        nxt = block.get("next_block_label")
        if isinstance(nxt, str) and nxt in label_map:
            block["next_block_label"] = label_map[nxt]

    _walk_blocks(definition.get("blocks"), fix_block_refs)
    fin = definition.get("finally_block_label")
    if isinstance(fin, str) and fin in label_map:
        definition["finally_block_label"] = label_map[fin]
    return Sanitized(request, label_map, key_map)


def _rewrite_all(text: str, subs: list[tuple[str, str]]) -> str:
    """All substitutions in one pass, so a result is never substituted again (§8.2 step 6)."""
    if not subs:
        return text
    table = dict(subs)
    names = sorted(table, key=len, reverse=True)
    pattern = re.compile(r"\{\{(\s*)(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9_])")
    return pattern.sub(lambda m: "{{" + m.group(1) + table[m.group(2)], text)
