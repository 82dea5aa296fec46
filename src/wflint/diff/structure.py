"""What changed between two versions of one workflow, by label and field, never by line.

Both sides are typed views (``wflint.workflow.view``), so every value is the one the service
reads (after its YAML sanitizer), and ``normalize`` makes two spellings of one value equal.
Blocks are matched by label; the ones left over are matched by content (same block type, most
fields alike), which is a rename. A matched block whose scope or list position changed moved;
its fields are compared one by one. Routing is compared as the service derives it
(``workflow.routing``): edges by their source and target labels, old labels read through the
renames, so a rename alone adds and removes no edge.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Any

from ..workflow import routing
from ..workflow.view import Block, Workflow
from .normalize import canonical_object

#: a field that one side does not have
ABSENT: Any = type("Absent", (), {"__repr__": lambda self: "(absent)", "__bool__": lambda self: False})()

#: how alike two blocks' fields must be (0..1) for a label change to read as a rename
RENAME_THRESHOLD = 0.5


@dataclass
class FieldChange:
    #: where, from the object: ``navigation_goal``, ``branch_conditions[1].criteria.expression``
    path: str
    old: Any
    new: Any


@dataclass
class BlockChange:
    #: the label in the new version (the old one for a removed block)
    label: str
    #: "added", "removed" or "kept" (present in both, perhaps renamed, moved or changed)
    status: str
    block_type: str | None = None
    renamed_from: str | None = None
    #: how it moved, in words ("from position 2 to 5 of the top level"), or None
    moved: str | None = None
    fields: list[FieldChange] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.status != "kept" or bool(self.renamed_from or self.moved or self.fields)


@dataclass
class ParamChange:
    key: str
    #: "added", "removed" or "kept"
    status: str
    old_type: str | None = None
    new_type: str | None = None
    fields: list[FieldChange] = field(default_factory=list)
    #: the key in the old version, when the key changed (matched by content)
    renamed_from: str | None = None

    @property
    def retyped(self) -> bool:
        return self.status == "kept" and self.old_type != self.new_type


@dataclass(frozen=True)
class RouteEdge:
    #: the loop whose body holds the edge (None: the top level)
    scope: str | None
    source: str
    target: str
    #: "next", "branch", "merge" or "sequence" (a v1 definition's list order)
    via: str
    #: for a branch, its condition in words
    detail: str = ""


@dataclass
class Structure:
    blocks: list[BlockChange] = field(default_factory=list)
    params: list[ParamChange] = field(default_factory=list)
    edges_added: list[RouteEdge] = field(default_factory=list)
    edges_removed: list[RouteEdge] = field(default_factory=list)
    #: workflow-level fields (title, settings, finally_block_label, error_code_mapping ...)
    settings: list[FieldChange] = field(default_factory=list)
    #: old label -> new label, for every block present in both versions
    renames: dict[str, str] = field(default_factory=dict)
    #: old key -> new key, for the parameters whose key changed
    param_renames: dict[str, str] = field(default_factory=dict)

    @property
    def changed_blocks(self) -> list[BlockChange]:
        return [b for b in self.blocks if b.changed]

    @property
    def changed_params(self) -> list[ParamChange]:
        return [p for p in self.params if p.status != "kept" or p.fields or p.retyped or p.renamed_from]

    @property
    def empty(self) -> bool:
        return not (self.changed_blocks or self.changed_params or self.edges_added or self.edges_removed
                    or self.settings)


# --------------------------------------------------------------------------- values


def field_changes(old: Any, new: Any, prefix: str = "") -> list[FieldChange]:
    """The fields that differ, recursing into mappings and into lists of mappings of one length."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[FieldChange] = []
        for key in list(old) + [k for k in new if k not in old]:
            where = f"{prefix}.{key}" if prefix else str(key)
            out.extend(field_changes(old.get(key, ABSENT), new.get(key, ABSENT), where))
        return out
    if isinstance(old, list) and isinstance(new, list) and old and new and all(isinstance(x, dict) for x in old + new):
        return _list_changes(old, new, prefix)
    if old is ABSENT and new is ABSENT:
        return []
    if _same(old, new):
        return []
    return [FieldChange(prefix, old, new)]


def _list_changes(old: list[dict], new: list[dict], prefix: str) -> list[FieldChange]:
    """Items of two lists of objects (branches, retry rules ...): those inserted or taken out
    are named by their index, the ones in place compared field by field."""
    if len(old) == len(new):
        return [c for i, (a, b) in enumerate(zip(old, new)) for c in field_changes(a, b, f"{prefix}[{i}]")]
    keys = [json.dumps(x, sort_keys=True, default=str) for x in old], [json.dumps(x, sort_keys=True, default=str) for x in new]
    out: list[FieldChange] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, *keys, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        common = min(i2 - i1, j2 - j1) if op == "replace" else 0
        for k in range(common):
            out += field_changes(old[i1 + k], new[j1 + k], f"{prefix}[{j1 + k}]")
        out += [FieldChange(f"{prefix}[{i}] (removed)", old[i], ABSENT) for i in range(i1 + common, i2)]
        out += [FieldChange(f"{prefix}[{j}] (added)", ABSENT, new[j]) for j in range(j1 + common, j2)]
    return out


def _same(a: Any, b: Any) -> bool:
    # 1 == True and 1.0 == 1 in Python; the service tells a boolean from an integer
    return a == b and type(a) is type(b) if not isinstance(a, (dict, list)) else a == b


def block_fields(block: Block, rel: Any, renames: dict[str, str] | None = None) -> dict[str, Any]:
    """A block's fields as the service holds them, without what the diff compares elsewhere:
    its label, its loop body and its ``next_block_label`` (a routing edge). Branch targets stay
    (which branch leads where is the conditional's own field), read through ``renames``."""
    data = canonical_object(block.data, rel.BLOCK_TYPES.get(block.tag or ""), rel,
                            extra_fields=tuple(rel.COMMON_BLOCK_FIELDS),
                            skip=frozenset({"label", "loop_blocks", "next_block_label"}))
    if block.tag_guessed and "block_type" not in data and block.tag:
        data["block_type"] = block.tag
    branches = data.get("branch_conditions")
    if isinstance(branches, list):
        names = renames or {}
        data["branch_conditions"] = [
            {k: (names.get(v, v) if k == "next_block_label" and isinstance(v, str) else v) for k, v in b.items()}
            if isinstance(b, dict) else b for b in branches]
    return data


def similarity(a: dict[str, Any], b: dict[str, Any]) -> float:
    keys = set(a) | set(b)
    if not keys:
        return 1.0
    score = 0.0
    for k in keys:
        x, y = a.get(k, ABSENT), b.get(k, ABSENT)
        if x is not ABSENT and y is not ABSENT and _same(x, y):
            score += 1
        elif isinstance(x, str) and isinstance(y, str):
            score += difflib.SequenceMatcher(None, x, y, autojunk=False).quick_ratio()  # linear: prompts can be long
    return score / len(keys)


# --------------------------------------------------------------------------- blocks


def _key(block: Block, i: int) -> str:
    return block.label if block.label is not None else f"(block {i + 1} without a label)"


def _scope_name(label: str | None) -> str:
    return "the top level" if label is None else f"the body of loop {label}"


def _match_blocks(old: Workflow, new: Workflow) -> tuple[list[tuple[Block, Block]], list[Block], list[Block]]:
    """(old, new) pairs, then the old blocks left over (removed) and the new ones (added)."""
    by_label: dict[str, Block] = {}
    for b in new.all_blocks:
        if b.label is not None:
            by_label.setdefault(b.label, b)
    pairs: list[tuple[Block, Block]] = []
    taken: set[int] = set()
    left_old: list[Block] = []
    for b in old.all_blocks:
        twin = by_label.get(b.label) if b.label is not None else None
        if twin is not None and id(twin) not in taken:
            pairs.append((b, twin))
            taken.add(id(twin))
        else:
            left_old.append(b)
    left_new = [b for b in new.all_blocks if id(b) not in taken]
    # by content: the most alike pairs of one block type first
    old_fields = {id(b): block_fields(b, old.release) for b in left_old}
    new_fields = {id(b): block_fields(b, new.release) for b in left_new}
    scored = sorted(((similarity(old_fields[id(a)], new_fields[id(b)]), i, j)
                     for i, a in enumerate(left_old) for j, b in enumerate(left_new) if a.tag == b.tag),
                    key=lambda s: (-s[0], s[1], s[2]))
    used_old: set[int] = set()
    used_new: set[int] = set()
    for score, i, j in scored:
        if score < RENAME_THRESHOLD or i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        pairs.append((left_old[i], left_new[j]))
    return (pairs, [b for i, b in enumerate(left_old) if i not in used_old],
            [b for j, b in enumerate(left_new) if j not in used_new])


def _parent_label(block: Block) -> str | None:
    return block.parent.label if block.parent is not None else None


def _moves(pairs: list[tuple[Block, Block]], renames: dict[str, str]) -> dict[int, str]:
    """id(new block) -> how it moved: to another scope, or within its scope out of the order the
    others keep (the longest run of blocks in common order stays put)."""
    moved: dict[int, str] = {}
    same_scope: dict[str | None, list[tuple[Block, Block]]] = {}
    for a, b in pairs:
        was = _parent_label(a)
        was = renames.get(was, was) if was is not None else None
        now = _parent_label(b)
        if was != now:
            moved[id(b)] = f"from {_scope_name(was)} to {_scope_name(now)}"
        else:
            same_scope.setdefault(now, []).append((a, b))
    for members in same_scope.values():
        old_order = sorted(members, key=lambda p: p[0].path)
        new_order = sorted(members, key=lambda p: p[1].path)
        a_ids = [id(p[1]) for p in old_order]
        b_ids = [id(p[1]) for p in new_order]
        matcher = difflib.SequenceMatcher(None, a_ids, b_ids, autojunk=False)
        kept = {x for blk in matcher.get_matching_blocks() for x in b_ids[blk.b: blk.b + blk.size]}
        for a, b in members:
            if id(b) not in kept:
                moved[id(b)] = f"from position {a.path[-1] + 1} to {b.path[-1] + 1} of {_scope_name(_parent_label(b))}"
    return moved


def _blocks(old: Workflow, new: Workflow, out: Structure) -> None:
    pairs, removed, added = _match_blocks(old, new)
    renames = {a.label: b.label for a, b in pairs if a.label is not None and b.label is not None}
    out.renames = renames
    moved = _moves(pairs, renames)
    order = {id(b): i for i, b in enumerate(new.all_blocks)}
    kept: list[BlockChange] = []
    for a, b in sorted(pairs, key=lambda p: order[id(p[1])]):
        change = BlockChange(_key(b, order[id(b)]), "kept", b.tag)
        if a.label != b.label:
            change.renamed_from = a.label
        change.moved = moved.get(id(b))
        change.fields = field_changes(block_fields(a, old.release, renames), block_fields(b, new.release))
        kept.append(change)
    out.blocks = kept + [BlockChange(_key(b, order[id(b)]), "added", b.tag) for b in added]
    out.blocks += [BlockChange(_key(b, i), "removed", b.tag) for i, b in enumerate(removed)]


# --------------------------------------------------------------------------- routing


def branch_words(branch: Any) -> str:
    if not isinstance(branch, dict):
        return ""
    if branch.get("is_default") is True:
        return "default"
    described = branch.get("description")
    criteria = branch.get("criteria")
    expression = criteria.get("expression") if isinstance(criteria, dict) else None
    words = described if isinstance(described, str) and described.strip() else expression
    return " ".join(words.split()) if isinstance(words, str) else ""


def route_edges(wf: Workflow, renames: dict[str, str] | None = None) -> list[RouteEdge]:
    """Every execution edge of every scope, as the service derives them; labels read through
    ``renames`` (old label -> new label)."""
    names = renames or {}
    out: list[RouteEdge] = []
    for loop, members in routing.scopes(wf):
        if any(b.label is None for b in members) or (loop is not None and loop.label is None):
            continue
        scope = [routing.scope_block(b) for b in members]
        fin = wf.finally_label if loop is None else None
        route = routing.route(scope, wf.version >= 2, fin)
        by_label = {b.label: b for b in members}
        for e in route.edges:
            detail = ""
            if e.via[0] == "branch":
                branches = by_label[e.source].data.get("branch_conditions")
                detail = branch_words(branches[e.via[1]]) if isinstance(branches, list) else ""
            elif e.via[0] == "merge":
                detail = f"merge point of {names.get(e.via[1], e.via[1])}"
            scope_label = names.get(loop.label, loop.label) if loop is not None else None
            out.append(RouteEdge(scope_label, names.get(e.source, e.source), names.get(e.target, e.target),
                                 e.via[0], detail))
    return out


def _edge_key(e: RouteEdge) -> tuple:
    # a branch's condition is a field of its conditional (compared there): an edited condition
    # is not a new edge
    return (e.scope, e.source, e.target, e.via)


def _edges(old: Workflow, new: Workflow, out: Structure) -> None:
    before = route_edges(old, out.renames)
    after = route_edges(new)
    old_keys = {_edge_key(e) for e in before}
    new_keys = {_edge_key(e) for e in after}
    out.edges_added = [e for e in after if _edge_key(e) not in old_keys]
    out.edges_removed = [e for e in before if _edge_key(e) not in new_keys]


# --------------------------------------------------------------------------- parameters and settings


def _params(old: Workflow, new: Workflow, out: Structure) -> None:
    def fields(p: Any, rel: Any) -> dict[str, Any]:
        return canonical_object(p.data, rel.PARAMETER_TYPES.get(p.type or ""), rel)

    def kind(p: Any) -> str | None:
        sub = p.data.get("workflow_parameter_type")
        return f"{p.type}:{sub}" if p.type == "workflow" and isinstance(sub, str) else p.type

    before = {p.key: p for p in old.params if p.key is not None}
    after = {p.key: p for p in new.params if p.key is not None}
    # a key that changed: the parameters left over, of one kind, matched by their other fields
    left_old = [k for k in before if k not in after]
    left_new = [k for k in after if k not in before]
    without_key = {("o", k): {f: v for f, v in fields(before[k], old.release).items() if f != "key"} for k in left_old}
    without_key.update({("n", k): {f: v for f, v in fields(after[k], new.release).items() if f != "key"} for k in left_new})
    scored = sorted(((similarity(without_key[("o", a)], without_key[("n", b)]), i, j)
                     for i, a in enumerate(left_old) for j, b in enumerate(left_new)
                     if kind(before[a]) == kind(after[b])), key=lambda x: (-x[0], x[1], x[2]))
    renamed: dict[str, str] = {}
    for score, i, j in scored:
        a, b = left_old[i], left_new[j]
        if score >= RENAME_THRESHOLD and a not in renamed and b not in renamed.values():
            renamed[a] = b
    twin = {b: a for a, b in renamed.items()}
    for key, p in after.items():
        was = key if key in before else twin.get(key)
        if was is None:
            out.params.append(ParamChange(key, "added", None, kind(p)))
            continue
        q = before[was]
        a, b = fields(q, old.release), fields(p, new.release)
        a.pop("key", None)
        b.pop("key", None)
        out.params.append(ParamChange(key, "kept", kind(q), kind(p), field_changes(a, b),
                                      renamed_from=was if was != key else None))
    out.params += [ParamChange(k, "removed", kind(p), None) for k, p in before.items() if k not in after and k not in renamed]
    out.param_renames = renamed


def _settings(old: Workflow, new: Workflow, out: Structure) -> None:
    def request(wf: Workflow, renames: dict[str, str]) -> dict[str, Any]:
        rel = wf.release
        top = canonical_object(wf.request, rel.REQUEST, rel, skip=frozenset({"workflow_definition"}))
        definition = canonical_object(wf.definition or {}, rel.OBJECTS.get("WorkflowDefinition"), rel,
                                      skip=frozenset({"blocks", "parameters", "version"}))
        fin = definition.get("finally_block_label")
        if isinstance(fin, str):
            definition["finally_block_label"] = renames.get(fin, fin)
        definition["version (as the service reads it)"] = wf.version
        return {**top, "workflow_definition": definition}

    out.settings = field_changes(request(old, out.renames), request(new, {}))


def compare(old: Workflow, new: Workflow) -> Structure:
    """The structural changes from ``old`` to ``new`` (two views of one workflow)."""
    out = Structure()
    _blocks(old, new, out)
    _params(old, new, out)
    _edges(old, new, out)
    _settings(old, new, out)
    return out
