"""WF106: renaming invalid identifiers, and every reference to them.

A block label or parameter key that is not an identifier (``open-page``, ``second step``,
``1st``) is renamed to the name the service's YAML sanitizer gives it (``sanitize.sanitize``:
``sanitize_name``, made unique the same way, so a workflow already saved through
``yaml_definition`` keeps its stored names), and every reference is updated in the same pass,
including the ones the sanitizer misses (§8.3):

* label references: ``next_block_label`` of every block at any depth and of every
  ``branch_conditions`` entry, and the definition's ``finally_block_label``;
* parameter references (a renamed key, or ``<label>_output`` of a renamed label): the
  ``parameter_keys`` entries, ``loop_over_parameter_key``, a context parameter's
  ``source_parameter_key``, ``send_email``'s ``smtp_*_secret_parameter_key`` and a Bitwarden
  login's ``url_parameter_key`` (which fields these are is read from the model: every field
  declared with ``reference=``), and ``loop_variable_reference`` when, stripped of spaces and
  braces, it is exactly such a name (the service reads it that way, §5.6.2);
* template references in every string of the definition, dictionary keys included (which
  occurrences count is ``templates``' business).

A name is *not* renamed (a note says why) when the rename could change meaning or be ambiguous:
it is blank (WF107's business); it occurs more than once (duplicate labels or keys: which
references mean which item is the author's decision); the service only renames it because it
repeats (WF201); the new name is already used by another block or parameter (the service would
then rename that one too and re-point its references, §8.3); or, in a document sent as
``json_definition``, the service accepts the name as it is (``café``, keywords), where renaming
would change the stored name. The sanitizer's quirk of also replacing parameter strings that
merely *equal* an old key (a ``default_value`` of ``my-url``) is deliberately not reproduced.
Nothing of a rename is applied when any of its edits cannot be written safely (a note says so).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from .. import model
from ..model import types as t
from ..document.nodes import Node
from ..workflow.sanitizer import sanitize, sanitize_name
from ..checks.service_checks import block_label_error, parameter_key_error
from .document import Path_, _blocks, _get, _pairs
from .edits import _apply_subs, _Edit, _Fixer, _string_edit, _Unsafe
from .templates import _names_pattern, _template_subs


def _reference_fields() -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[str, dict[str, str]]]:
    """Reference fields by name, per place: definition, block, parameter, and nested objects
    of blocks (``branch_conditions``). Values are "label" or "parameter"."""
    def refs(fields) -> dict[str, str]:
        return {f.name: f.reference for f in fields if f.reference}

    definition = refs(model.DEFINITION.fields)
    block = refs(model.COMMON_BLOCK_FIELDS)
    nested: dict[str, dict[str, str]] = {}
    for m in model.BLOCK_TYPES.values():
        block.update(refs(m.fields))
        for f in m.fields:
            typ = f.type.items if isinstance(f.type, t.Array) else f.type
            if isinstance(typ, t.Ref):
                target = model.OBJECTS.get(typ.target)
                if target is not None and refs(target.fields):
                    nested[f.name] = refs(target.fields)
    param: dict[str, str] = {}
    for m in model.PARAMETER_TYPES.values():
        param.update(refs(m.fields))
    return definition, block, param, nested


_DEF_REFS, _BLOCK_REFS, _PARAM_REFS, _NESTED_REFS = _reference_fields()
_LOOP_VARIABLE_REFERENCE = "loop_variable_reference"
_SIMPLE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _at(data: Any, path: Path_) -> Any:
    for part in path:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data


# =========================================================================== which names


@dataclass
class _Plan:
    labels: dict[str, str]
    keys: dict[str, str]
    #: the data the service would see, to tell which references its sanitizer misses
    service: Any


def plan_renames(fixer: _Fixer) -> _Plan | None:
    """The labels and keys to rename in the fixer's document (after its quoting), or None."""
    data = fixer.data()
    definition = data.get("workflow_definition") if isinstance(data, dict) else None
    if not isinstance(definition, dict):
        return None
    service = sanitize(data)
    if not service.changed:
        return None
    def_node = _get(fixer.doc.root, "workflow_definition")
    label_nodes = [n for _, n in _label_nodes(fixer, def_node)]
    key_nodes = [n for _, n in _key_nodes(fixer, def_node)]
    labels = _eligible(fixer, service.label_map, label_nodes, "block", "label", block_label_error)
    keys = _eligible(fixer, service.key_map, key_nodes, "parameter", "key", parameter_key_error)
    if not labels and not keys:
        return None
    return _Plan(labels, keys, service.request)


def _label_nodes(fixer: _Fixer, def_node: Node | None) -> Iterator[tuple[Path_, Node]]:
    for path, block in _blocks(def_node):
        n = _get(block, "label")
        if n is not None and isinstance(fixer.value(n), str):
            yield path + ("label",), n


def _key_nodes(fixer: _Fixer, def_node: Node | None) -> Iterator[tuple[Path_, Node]]:
    params = _get(def_node, "parameters")
    if params is None or params.kind != "seq":
        return
    for i, p in enumerate(params.items):
        n = _get(p, "key")
        if n is not None and isinstance(fixer.value(n), str):
            yield ("workflow_definition", "parameters", i, "key"), n


def _eligible(fixer: _Fixer, renames: dict[str, str], nodes: list[Node], kind: str, field_: str,
              service_error: Callable[[str], str | None]) -> dict[str, str]:
    originals = [fixer.value(n) for n in nodes]
    counts = Counter(originals)
    first = {}
    for n, v in zip(nodes, originals):
        first.setdefault(v, n)
    out: dict[str, str] = {}
    for old, new in renames.items():
        node = first.get(old)
        if node is None or not old.strip():
            continue
        if sanitize_name(old, kind) == old:
            if counts[old] > 1:
                fixer.note(node, f"{kind} {field_} '{old}' is used {counts[old]} times; not renamed "
                                 f"(deciding which references mean which {kind} is yours)")
            continue
        if fixer.doc.mode == "json" and service_error(old) is None:
            continue  # accepted as it is by the JSON path: renaming would change it
        if counts[old] > 1:
            fixer.note(node, f"{kind} {field_} '{old}' is not a valid identifier but is used "
                             f"{counts[old]} times; not renamed (rename the copies by hand)")
            continue
        if new in counts:
            fixer.note(node, f"{kind} {field_} '{old}' is not a valid identifier, but its new name "
                             f"'{new}' is taken by another {kind}; not renamed (rename it by hand)")
            continue
        out[old] = new
    return out


# =========================================================================== the edits


def rename(fixer: _Fixer, plan: _Plan) -> None:
    """Add the edits of ``plan`` to the fixer: every renamed name and every reference to it,
    or nothing (with a note) when one of them cannot be written safely."""
    labels, keys = plan.labels, plan.keys
    params = dict(keys)
    for old, new in labels.items():
        params.setdefault(old + "_output", new + "_output")
    templates = dict(params)
    root = fixer.doc.root
    for old, new in labels.items():
        if templates.setdefault(old, new) != new:
            fixer.note(root, f"'{old}' is both a label and a parameter key with different new names; "
                             f"no names were changed")
            return
    renamer = _Renamer(fixer, plan, templates)
    try:
        renamer.edit(labels, keys, params)
    except _Unsafe as exc:
        names = ", ".join(f"'{o}'" for o in [*labels, *keys])
        fixer.note(root, f"not renamed: {names}: {exc}")
        return
    fixer.edits.update(renamer.new)


class _Renamer:
    """One rename in progress: its edits are collected in ``new``, by node identity."""

    def __init__(self, fixer: _Fixer, plan: _Plan, templates: dict[str, str]):
        self.fixer = fixer
        self.doc = fixer.doc
        self.value = fixer.value
        self.plan = plan
        self.templates = templates
        self.patterns = _names_pattern(templates)
        self.new: dict[int, _Edit] = {}

    def edit(self, labels: dict[str, str], keys: dict[str, str], params: dict[str, str]) -> None:
        def_node = _get(self.doc.root, "workflow_definition")
        for path, n in _label_nodes(self.fixer, def_node):
            if self.value(n) in labels:
                self._whole(n, path, labels[self.value(n)], "renamed block label")
        for path, n in _key_nodes(self.fixer, def_node):
            if self.value(n) in keys:
                self._whole(n, path, keys[self.value(n)], "renamed parameter key")
        for path, block in _blocks(def_node):
            self._references(block, path, _BLOCK_REFS, labels, params)
            for name, refs in _NESTED_REFS.items():
                seq = block.get(name)
                if seq is not None and seq.kind == "seq":
                    for i, item in enumerate(seq.items):
                        if item.kind == "map":
                            self._references(item, path + (name, i), refs, labels, params)
            loopvar = block.get(_LOOP_VARIABLE_REFERENCE)
            if loopvar is not None:
                self._loop_variable(loopvar, path + (_LOOP_VARIABLE_REFERENCE,), params)
        param_seq = _get(def_node, "parameters")
        if param_seq is not None and param_seq.kind == "seq":
            for i, p in enumerate(param_seq.items):
                if p.kind == "map":
                    self._references(p, ("workflow_definition", "parameters", i), _PARAM_REFS, labels, params)
        if def_node is not None and def_node.kind == "map":
            self._references(def_node, ("workflow_definition",), _DEF_REFS, labels, params)
            self._strings(def_node, ("workflow_definition",), "workflow_definition")

    def _references(self, owner: Node, path: Path_, refs: dict[str, str], labels: dict[str, str],
                    params: dict[str, str]) -> None:
        for k, v in _pairs(owner):
            kind = refs.get(k.value) if isinstance(k.value, str) else None
            if kind is None:
                continue
            table = labels if kind == "label" else params
            if v.kind == "scalar":
                if isinstance(self.value(v), str) and self.value(v) in table:
                    self._whole(v, path + (k.value,), table[self.value(v)], k.value)
            elif v.kind == "seq":
                for i, item in enumerate(v.items):
                    if item.kind == "scalar" and isinstance(self.value(item), str) and self.value(item) in table:
                        self._whole(item, path + (k.value, i), table[self.value(item)], f"{k.value} entry")

    def _loop_variable(self, node: Node, path: Path_, params: dict[str, str]) -> None:
        value = self.value(node)
        if node.kind != "scalar" or not isinstance(value, str):
            return
        name = value.strip(" {}")
        if name in params and "{" not in name:
            a = value.index(name)
            message = f"{_LOOP_VARIABLE_REFERENCE} '{value}' → '{_apply_subs(value, [(a, a + len(name), params[name])])}'"
            if self.doc.mode == "yaml" and "{" not in value:
                message += " (missed by the service's sanitizer)"
            self._sub(node, [(a, a + len(name), params[name])], message)

    def _strings(self, node: Node, path: Path_, where: str) -> None:
        """Template references in every string at or below ``node`` (keys included)."""
        if node.kind == "scalar":
            self._template(node, path, where)
        elif node.kind == "seq":
            for i, item in enumerate(node.items):
                self._strings(item, path + (i,), where)
        else:
            for k, v in _pairs(node):
                if k.kind == "scalar":
                    self._template(k, path, f"{where}: key {k.raw or k.value}", is_key=True)
                name = str(k.value)
                self._strings(v, path + (k.value,), name if _SIMPLE_KEY.fullmatch(name) else f"{where}[{k.raw}]")

    def _template(self, node: Node, path: Path_, where: str, is_key: bool = False) -> None:
        value = self.value(node)
        if not isinstance(value, str) or id(node) in self.new:
            return
        subs = _template_subs(value, self.patterns, self.templates)
        if not subs:
            return
        # the sanitizer rewrites ``{{ old`` in block and parameter values, the system prompt and
        # error_code_mapping (keys too); anything else it misses (§8.2, §8.3)
        covered = len(path) > 1 and path[1] in ("blocks", "parameters", "workflow_system_prompt", "error_code_mapping")
        if is_key and path[1:2] != ("error_code_mapping",):
            covered = False
        pairs: dict[str, bool] = {}
        for a, b, new in subs:
            missed = not (covered and re.search(r"\{\{\s*\Z", value[:a]))
            label = f"'{value[a:b]}' → '{new}'"
            pairs[label] = pairs.get(label, False) or missed
        shown = [label + (" (missed by the service's sanitizer)" if missed and self.doc.mode == "yaml" else "")
                 for label, missed in pairs.items()]
        what = f"{where}: template reference{'s' if len(shown) > 1 else ''} {', '.join(shown)}"
        self._sub(node, subs, what)

    def _whole(self, node: Node, path: Path_, new: str, what: str) -> None:
        old = self.value(node)
        message = f"{what} '{old}' → '{new}'"
        missed = _at(self.plan.service, path) != new
        if not what.startswith("renamed") and self.doc.mode == "yaml" and missed:
            message += " (missed by the service's sanitizer)"
        self._sub(node, [(0, len(old), new)], message)

    def _sub(self, node: Node, subs: list[tuple[int, int, str]], message: str) -> None:
        if id(node) in self.new:
            return
        old = self.value(node)
        new = _apply_subs(old, subs)
        if new == old:
            return
        splices = _string_edit(self.doc, node, old, new, subs, self.fixer.conservative)
        start = splices[0][0] if splices else node.start.offset
        self.new[id(node)] = _Edit(node, new, splices, start, message + self.fixer.where(), "WF106")
