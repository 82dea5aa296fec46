"""The typed view of one workflow request: what every rule reads.

Built once per request from the positioned tree and the plain data the service would see
(for the YAML path, after its sanitizer). Values come from ``data``; positions come from the
node at the same *path* (a tuple of keys and indices from the request root), so a rule says
"this problem is at that path" and never computes a line number itself.
"""

from __future__ import annotations

from typing import Any, Iterator

from .. import model
from ..model.release_view import per_model
from ..core.diagnostics import Diagnostic, ServiceVerdict, make
from ..document.limits import DEFAULT, Limits
from ..document.nodes import Node
from ..core.diagnostics import Pos
from ..model.validators import accepts_as
from ..model.lax import lax_int
from ..core.records import MutableRecord, assign, fresh
from .sanitizer import Sanitized
from .computed_once import computed_once

Path = tuple[Any, ...]
#: mappings with more pairs than this are looked up through an index (``Workflow._map_index``)
_INDEXED = 8


class Param(MutableRecord, eq=False):  # one view per item: compared by identity

    def __init__(self, index: int, path: Path, data: dict[str, Any]) -> None:
        # one per parameter (and Block's per block): plain stores, faster than assign()'s loop
        # and the dataclass's __init__; tests hold them equal to the signature
        self.index = index
        self.path = path
        self.data = data

    # cached: the view's data is never changed once built, and the rules read these a lot
    @computed_once
    def type(self) -> str | None:
        t = self.data.get("parameter_type")
        return t if isinstance(t, str) else None

    @computed_once
    def key(self) -> str | None:
        k = self.data.get("key")
        return k if isinstance(k, str) else None


_NO_CHILDREN = fresh(list)  # a block's default children: a new list for each


class Block(MutableRecord, eq=False):

    def __init__(self, path: Path, data: dict[str, Any],
                 #: the effective block type: the given ``block_type``, or the service's guess for a loop
                 #: child that has none (``tag_guessed`` is then True)
                 tag: str | None, tag_guessed: bool = False, parent: Block | None = None,
                 children: list[Block] = _NO_CHILDREN) -> None:
        self.path = path  # 29,000 blocks over the benchmark corpus: stores spelt out, as Param's
        self.data = data
        self.tag = tag
        self.tag_guessed = tag_guessed
        self.parent = parent
        self.children = [] if children is _NO_CHILDREN else children

    @computed_once
    def label(self) -> str | None:
        # read by nearly every rule, for every block (350k times over the benchmark corpus);
        # a block's data is never changed once the view is built
        v = self.data.get("label")
        return v if isinstance(v, str) else None

    @property
    def next_label(self) -> str | None:
        v = self.data.get("next_block_label")
        return v if isinstance(v, str) else None

    @property
    def depth(self) -> int:
        d, p = 0, self.parent
        while p is not None:
            d, p = d + 1, p.parent
        return d

    @computed_once
    def is_loop(self) -> bool:
        return self.tag in ("for_loop", "while_loop")

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)


class Workflow(MutableRecord, eq=False):
    """One request (a definition file, or the definition inside an update body)."""

    def __init__(
        self,
        path: str,
        #: "json" or "yaml": how the service receives it (the YAML path runs the sanitizer)
        mode: str,
        root: Node | None,
        request: dict[str, Any],
        sanitized: Sanitized | None = None,
        #: the request was an ignored json_definition next to a yaml_definition: schema checks only
        schema_only: bool = False,
        params: list[Param] = fresh(list),
        blocks: list[Block] = fresh(list),
        #: shared per-run caches (schema errors, template parses ...), filled by whoever needs them
        cache: dict[str, Any] = fresh(dict),
        #: the SourceFile the node positions refer to (an EmbeddedSource for a yaml_definition);
        #: None for plain data (the mock server), where rules fall back to node starts
        source: Any = None,
        #: the service release this request is judged by (``wflint check --target-version``)
        release: model.Release = fresh(lambda: model.NEWEST_RELEASE),
        #: the limits templates and code are parsed within (WF007)
        limits: Limits = DEFAULT,
    ) -> None:
        assign(self, locals())
        #: path -> (the node ``node(path)`` found, whether it is exactly there); the tree does not
        #: change once the view exists. Not a field: not shown, not given to __init__
        self._nodes: dict[Path, tuple[Node | None, bool]] = {}

    # -- structure -------------------------------------------------------------------------
    @property
    def definition(self) -> dict[str, Any] | None:
        d = self.request.get("workflow_definition")
        return d if isinstance(d, dict) else None

    @computed_once
    def all_blocks(self) -> list[Block]:
        """Every block, depth first: a loop, then its body."""
        # a loop, not a nested recursive function: that is a reference cycle per call, left
        # for the cycle collector
        out: list[Block] = []
        stack = list(reversed(self.blocks))
        while stack:
            b = stack.pop()
            out.append(b)
            stack.extend(reversed(b.children))
        return out

    @computed_once
    def labels(self) -> dict[str, list[Block]]:
        out: dict[str, list[Block]] = {}
        for b in self.all_blocks:
            if b.label is not None:
                out.setdefault(b.label, []).append(b)
        return out

    @computed_once
    def param_keys(self) -> dict[str, list[Param]]:
        out: dict[str, list[Param]] = {}
        for p in self.params:
            if p.key is not None:
                out.setdefault(p.key, []).append(p)
        return out

    @computed_once
    def output_keys(self) -> set[str]:
        return {f"{label}_output" for label in self.labels}

    @property
    def known_keys(self) -> set[str]:
        """Keys a ``parameter_keys`` entry may name (§6.5 D8)."""
        return set(self.param_keys) | self.output_keys

    @computed_once
    def version(self) -> int:
        """The definition version the service will use (§3.4)."""
        d = self.definition or {}
        v = d.get("version")
        explicit = lax_int(v) if v is not None else None
        if explicit is not None:
            return explicit
        if not self.release.has_check("version_inference"):
            return 1  # before 1.0.44 the version defaults to 1 whatever the blocks say
        return 2 if self.uses_v2_constructs else 1

    @property
    def uses_v2_constructs(self) -> bool:
        return any(b.tag == "conditional" or b.next_label is not None for b in self.blocks)

    @property
    def finally_label(self) -> str | None:
        v = (self.definition or {}).get("finally_block_label")
        return v if isinstance(v, str) and v else None

    def blocks_of(self, *tags: str) -> Iterator[Block]:
        return (b for b in self.all_blocks if b.tag in tags)

    # -- positions -------------------------------------------------------------------------
    def node(self, path: Path, key: bool = False) -> Node | None:
        """The node at ``path`` (or its key node), or the nearest existing ancestor."""
        if key:
            return self._find(path, True)
        # rules ask for the same nodes (a block's label ...) again and again, and for siblings
        # of nodes found before: each path is walked once, from its nearest remembered ancestor
        found = self._nodes.get(path)
        return (found or self._reach(path))[0]

    def _reach(self, path: Path) -> tuple[Node | None, bool]:
        """(the node at ``path`` or its nearest existing ancestor, whether it is exactly at
        ``path``), remembered for ``path`` and every ancestor on the way."""
        nodes = self._nodes
        k = len(path)
        start = None
        while start is None and k > 0:
            k -= 1
            start = nodes.get(path[:k])
        if start is None:
            start = nodes[()] = (self.root, self.root is not None)
        node, exact = start
        for i in range(k, len(path)):
            if exact:
                nxt = self._step(node, path[i])  # type: ignore[arg-type]
                if nxt is None:
                    exact = False
                else:
                    node = nxt
            nodes[path[: i + 1]] = (node, exact)
        return node, exact

    def _step(self, node: Node, part: Any, key: bool = False) -> Node | None:
        """The child of ``node`` at ``part`` (for a mapping, its key node if ``key``), or None."""
        if node.kind == "map" and isinstance(part, str):
            if len(node.pairs) > _INDEXED:
                return self._map_index(node)[1 if key else 0].get(part)
            return node.key_node(part) if key else node.get(part)
        if node.kind == "seq" and isinstance(part, int) and 0 <= part < len(node.items):
            return node.items[part]
        return None

    def _find(self, path: Path, key: bool) -> Node | None:
        """``node`` without the memory: walked from the root (the key node at the last step)."""
        node = self.root
        if node is None:
            return None
        last = len(path) - 1
        for i, part in enumerate(path):
            nxt = self._step(node, part, key and i == last)
            if nxt is None:
                return node
            node = nxt
        return node

    def _map_index(self, node: Node) -> tuple[dict, dict]:
        """key → value node and key → key node of a wide mapping (the last duplicate wins, as
        ``Node.get``), built once: a lookup per finding scanned every pair, so a mapping with
        20,000 unknown keys took 28 s to report."""
        indexes = self.cache.setdefault("map-index", {})
        found = indexes.get(id(node))
        if found is None:
            values: dict = {}
            keys: dict = {}
            for k, v in node.pairs:
                try:
                    values[k.value] = v
                    keys[k.value] = k
                except TypeError:  # an unhashable key (a YAML mapping as a key) is never looked up
                    pass
            found = indexes[id(node)] = (values, keys)
        return found

    def span(self, path: Path, key: bool = False) -> tuple[Pos, Pos]:
        n = self.node(path, key=key)
        if n is None:
            zero = Pos(1, 1, 0)
            return zero, zero
        if n.kind == "map" and n.pairs and not key:
            # a whole mapping: point at its first key rather than underlining the whole block
            first = n.pairs[0][0]
            return first.start, first.end
        return n.start, n.end

    def diag(
        self,
        rule: Any,
        message: str,
        path: Path,
        *,
        key: bool = False,
        help: str | None = None,
        severity: str | None = None,
        service: ServiceVerdict | None = None,
        start: Pos | None = None,
        end: Pos | None = None,
    ) -> Diagnostic:
        """A diagnostic of ``rule`` (a rule module or Rule) at ``path``."""
        if start is None:
            start, end = self.span(path, key=key)
        return make(
            rule.CODE,
            rule.NAME,
            severity or rule.SEVERITY,
            message,
            start,
            end,
            path=self.path,
            help=help,
            service=service,
        )


# ------------------------------------------------------------------------------ building


def build(
    path: str,
    mode: str,
    root: Node | None,
    request: dict[str, Any],
    *,
    sanitized: Sanitized | None = None,
    schema_only: bool = False,
    source: Any = None,
    release: str | model.Release | None = None,
    limits: Limits = DEFAULT,
) -> Workflow:
    rel = release if isinstance(release, model.Release) else model.release(release)
    wf = Workflow(path, mode, root, request, sanitized=sanitized, schema_only=schema_only,
                  source=source, release=rel, limits=limits)
    d = wf.definition
    if d is None:
        return wf
    params = d.get("parameters")
    if isinstance(params, list):
        wf.params = [
            Param(i, ("workflow_definition", "parameters", i), p) for i, p in enumerate(params) if isinstance(p, dict)
        ]
    wf.blocks = _blocks(d.get("blocks"), ("workflow_definition", "blocks"), None, loop=False, rel=rel)
    return wf


def _blocks(items: Any, path: Path, parent: Block | None, loop: bool,
            rel: model.Release = model.NEWEST_RELEASE) -> list[Block]:
    if not isinstance(items, list):
        return []
    out = []
    for i, data in enumerate(items):
        if not isinstance(data, dict):
            continue
        tag = data.get("block_type")
        guessed = False
        if not isinstance(tag, str) or tag not in rel.BLOCK_TYPES:
            if loop and "block_type" not in data:
                tag, guessed = guess_block_type(data, rel), True
            else:
                tag = None  # missing or unknown: WF101/WF103 report it
        block = Block(path + (i,), data, tag, guessed, parent)
        block.children = _blocks(data.get("loop_blocks"), path + (i, "loop_blocks"), block, loop=True,
                                 rel=rel) if block.is_loop else []
        out.append(block)
    return out


def guess_block_type(data: dict[str, Any], rel: model.Release = model.NEWEST_RELEASE) -> str | None:
    """The type the service picks for a loop child without ``block_type`` (§5.3): the first
    model, in tag order, that accepts the object, preferring the one with most fields set."""
    best: tuple[int, str] | None = None
    common = {f.name for f in rel.COMMON_BLOCK_FIELDS}
    for tag, obj in rel.BLOCK_TYPES.items():
        if not accepts_as(tag, data, rel.version):
            continue
        fields_set = sum(1 for k in data if k in common or obj.field(k) is not None)
        if best is None or fields_set > best[0]:
            best = (fields_set, tag)
    return best[1] if best else None


def modeled_objects(wf: Workflow) -> list[tuple[Path, dict[str, Any], Any]]:
    """Every object of the request whose declaration is known, as (path, data, ObjectModel):
    the request, the definition, each parameter and block (by its type), and the nested
    objects they reach through ``Ref`` fields (branches, criteria, retry rules ...). Computed
    once per workflow (several rules walk it): treat the list as read-only."""
    cached = wf.cache.get("modeled_objects")
    if cached is None:
        cached = wf.cache["modeled_objects"] = _modeled_objects(wf)
    return cached


def _modeled_objects(wf: Workflow) -> list[tuple[Path, dict[str, Any], Any]]:
    out: list[tuple[Path, dict[str, Any], Any]] = []
    rel = wf.release
    # an explicit stack, in the order the recursive walk had (an object, then what it reaches,
    # field by field): a nested recursive function is a reference cycle per call
    starts = [((), wf.request, rel.REQUEST)]
    starts += [(p.path, p.data, rel.PARAMETER_TYPES.get(p.type or "")) for p in wf.params]
    starts += [(b.path, b.data, rel.BLOCK_TYPES.get(b.tag or "")) for b in wf.all_blocks]
    stack = starts[::-1]
    while stack:
        path, data, obj = stack.pop()
        if not isinstance(data, dict) or obj is None:
            continue
        out.append((path, data, obj))
        reached = []
        for name, many, target in _object_fields(rel, obj):
            value = data.get(name)
            if not many:
                if isinstance(value, dict):
                    reached.append((path + (name,), value, target))
            elif isinstance(value, list):
                reached.extend((path + (name, i), item, target) for i, item in enumerate(value))
        stack.extend(reversed(reached))
    return out


@per_model
def _object_fields(rel: Any, obj: Any) -> tuple[tuple[str, bool, Any], ...]:
    """The fields of a model that hold modelled objects: (name, a list of them?, the target model)."""
    from ..model import types as t

    fields = []
    for f in obj.fields:
        typ = f.type
        if isinstance(typ, t.Ref):
            fields.append((f.name, False, rel.OBJECTS.get(typ.target)))
        elif isinstance(typ, t.Array) and isinstance(typ.items, t.Ref):
            fields.append((f.name, True, rel.OBJECTS.get(typ.items.target)))
    return tuple(fields)
