"""The service's v2 routing check (reference §6.7, stage F), as a pure function of labels.

A *scope* is the list of blocks routed together: the top level, or one loop body. For every
v2 definition the service checks the top level (after taking the finally block out), then
every loop body, recursively. Per scope it

1. builds nodes and edges: a block's ``next_block_label`` is its one edge; a conditional's
   edges are its branch targets, and its own ``next_block_label`` is only its *merge point*;
   there is no sequential defaulting (a block without ``next_block_label`` ends the route);
2. resolves merge points until nothing changes: for every conditional C with merge point M
   and every branch target T ≠ M, the chain of ``next_block_label`` from T either reaches M
   or ends at a block without a next, which is then treated as pointing at M;
3. refuses an edge to a label outside the scope (step 4 of §6.7), then a scope without a
   start block or with more than one (step 5), then a walk from the start block that cannot
   visit every block (step 6, a cycle).

The service stops at the first failure of the whole definition. This module reports, per
scope, every dangling edge, or else the root problem, or else the cycles: what the service
would say about that scope once the earlier problems are fixed. Callers order the findings
(scope, step) the way the service meets them.

Nothing here knows about files or rules: blocks come in as :class:`ScopeBlock` (label, next
label, branch targets) and findings go out with the service's exact message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..core.records import Record, assign, store
from .graph_search import cycles, reached_count, strongly_connected

if TYPE_CHECKING:  # the view is only named in annotations; the graph itself works on labels
    from .view import Block, Workflow

DANGLING, NO_ROOT, DISCONNECTED, CYCLE, DUPLICATE = "dangling", "no_root", "disconnected", "cycle", "duplicate"

#: the §6.7 step each kind of finding belongs to (the order within a scope)
STEP = {DUPLICATE: 0, DANGLING: 4, NO_ROOT: 5, DISCONNECTED: 5, CYCLE: 6}




class ScopeBlock(Record, uncompared=("ref",)):
    """What the graph needs of one block. ``next`` and branch targets are kept raw (any value
    that is not a string counts as unset); ``ref`` is the caller's handle (e.g. a view Block),
    left out of equality and hashing."""

    def __init__(self, label: str, next: Any = None, conditional: bool = False,  # noqa: A002
                 #: branch ``next_block_label`` values in list order (conditionals only)
                 branches: tuple[Any, ...] = (), ref: Any = None) -> None:
        # one per block and scope (48,000 over the benchmark corpus): the stores spelt out take
        # 0.86 us, assign()'s loop 1.47 us and the dataclass's __init__ 0.95 us; tests hold
        # them equal to the signature
        store(self, "label", label)
        store(self, "next", next)
        store(self, "conditional", conditional)
        store(self, "branches", branches)
        store(self, "ref", ref)


class Edge(Record):
    """``source → target``. ``via`` says where the edge comes from: ``("next",)`` (the
    block's ``next_block_label``), ``("branch", i)`` (branch ``i`` of a conditional), or
    ``("merge", c)`` (implicit: the chain ended and continues at conditional ``c``'s merge
    point)."""

    def __init__(self, source: str, target: str, via: tuple) -> None:
        # made by the ten thousand, as ScopeBlocks are: the stores spelt out
        store(self, "source", source)
        store(self, "target", target)
        store(self, "via", via)


class Finding(Record):
    def __init__(
        self,
        kind: str,
        #: label of the loop whose body is the scope, or None for the top level
        loop: str | None,
        #: the labels involved: the dangling edge's source, the extra roots (sorted), or a cycle
        #: in route order (its first label is repeated implicitly: a → b → a is ("a", "b"))
        labels: tuple[str, ...],
        #: the service's exact ``detail`` for this scope
        message: str,
        #: the edge concerned: the dangling edge, or the edge that closes a cycle
        edge: Edge | None = None,
    ) -> None:
        assign(self, locals())

    @property
    def step(self) -> int:
        return STEP[self.kind]


# --------------------------------------------------------------------------- messages


def _inside(loop: str | None) -> str:
    return f" inside loop {loop}" if loop is not None else ""


def dangling_message(source: str, target: str, loop: str | None) -> str:
    return f"Block {source} references unknown next_block_label {target}{_inside(loop)}"


def duplicate_message(label: str, loop: str | None) -> str:
    return f"Duplicate block label detected in loop: {label}" if loop is not None else f"Duplicate block label detected: {label}"


def no_root_message(loop: str | None) -> str:
    return (
        f"Circular reference detected{_inside(loop)}: every block is the target of another block's "
        "next_block_label, so there is no starting block. At least one block must not be the target "
        "of any next_block_label or branch condition."
    )


def disconnected_message(roots: Sequence[str], loop: str | None) -> str:
    return (
        f"Disconnected blocks detected{_inside(loop)}: blocks ({', '.join(sorted(roots))}) are not "
        "reachable from any other block. Every block must be reachable from the first block through "
        "next_block_label or conditional branch references. Either connect them by setting another "
        "block's next_block_label to point to them, or remove them."
    )


def cycle_message(loop: str | None) -> str:
    return (
        f"Circular reference detected{_inside(loop)}: some blocks form a loop through their "
        "next_block_label references, causing an infinite cycle. Ensure that following "
        "next_block_label from any block eventually reaches a block with next_block_label set to null."
    )


# --------------------------------------------------------------------------- one scope


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def strip_finally(blocks: Sequence[ScopeBlock], finally_label: str | None) -> list[ScopeBlock]:
    """Step 1: drop the finally block and null every reference to it."""
    if not finally_label:
        return list(blocks)

    def cut(target: Any) -> Any:
        return None if target == finally_label else target

    return [
        ScopeBlock(b.label, cut(b.next), b.conditional, tuple(cut(t) for t in b.branches), b.ref)
        for b in blocks
        if b.label != finally_label
    ]


def resolve_merges(blocks: Sequence[ScopeBlock], next_map: dict[str, Any]) -> dict[str, str]:
    """Step 3, exactly as the service does it: patch ``next_map`` in place until nothing
    changes. Returns {patched block: conditional whose merge point it now reaches}."""
    patched: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for b in blocks:
            if not b.conditional:
                continue
            successor = next_map.get(b.label)
            if not successor:
                continue
            for target in b.branches:
                target = _text(target)  # a non-string target (refused by WF102) routes nowhere
                if not target or target == successor:
                    continue
                cur, seen = target, set()
                # a chain stops at a label outside the scope, a loop, or the merge point
                while cur and cur in next_map and cur not in seen:
                    if cur == successor:
                        break
                    seen.add(cur)
                    nxt = next_map.get(cur)
                    if nxt is None:
                        next_map[cur] = successor
                        patched[cur] = b.label
                        changed = True
                        break
                    cur = nxt
    return patched


def edges_of(blocks: Sequence[ScopeBlock], merges: bool = True) -> list[Edge]:
    """Steps 2 and 3: every edge in the order the service adds them (block order; a
    conditional's branches in list order), implicit merge edges included unless ``merges``
    is False (a loop body before 1.0.44)."""
    next_map: dict[str, Any] = {b.label: _text(b.next) for b in blocks}
    patched = resolve_merges(blocks, next_map) if merges else {}
    out: list[Edge] = []
    for b in blocks:
        if b.conditional:
            for i, target in enumerate(b.branches):
                if isinstance(target, str) and target:
                    out.append(Edge(b.label, target, ("branch", i)))
        else:
            target = next_map.get(b.label)
            if target:
                via = ("merge", patched[b.label]) if b.label in patched else ("next",)
                out.append(Edge(b.label, target, via))
    return out


def check_scope(blocks: Sequence[ScopeBlock], loop: str | None = None, finally_label: str | None = None,
                merges: bool = True) -> list[Finding]:
    """The service's findings for one scope (empty when it passes). ``finally_label`` is
    only given for the top level; ``merges``: whether merge edges are resolved."""
    blocks = strip_finally(blocks, finally_label)
    if not blocks:
        return []
    labels: dict[str, ScopeBlock] = {}
    for b in blocks:
        if b.label in labels:
            return [Finding(DUPLICATE, loop, (b.label,), duplicate_message(b.label, loop))]
        labels[b.label] = b

    adjacency: dict[str, dict[str, Edge]] = {label: {} for label in labels}
    incoming = {label: 0 for label in labels}
    dangling: list[Finding] = []
    for e in edges_of(blocks, merges):
        if e.target not in labels:
            dangling.append(Finding(DANGLING, loop, (e.source, e.target), dangling_message(e.source, e.target, loop), e))
        elif e.target not in adjacency[e.source]:  # two branches to one block: one edge
            adjacency[e.source][e.target] = e
            incoming[e.target] += 1
    if dangling:
        return dangling

    roots = [label for label, n in incoming.items() if n == 0]
    if not roots:
        return [Finding(NO_ROOT, loop, c, no_root_message(loop), closing) for c, closing in cycles(adjacency)]
    if len(roots) > 1:
        return [Finding(DISCONNECTED, loop, tuple(sorted(roots)), disconnected_message(roots, loop))]
    if reached_count(roots[0], adjacency, incoming) == len(labels):
        return []
    return [Finding(CYCLE, loop, c, cycle_message(loop), closing) for c, closing in cycles(adjacency)]


# --------------------------------------------------------------------------- how a scope runs


class Route(Record):
    """How one scope runs, for readers that show it rather than judge it (``wflint graph``).

    ``edges`` are the execution edges in the order the service adds them (a v1 scope: list
    order, ``via ("sequence",)``); ``dangling`` those whose target is not in the scope;
    ``start`` the block the scope starts at (None when every block is a target); blocks the
    walk from ``start`` never reaches are ``unreachable``; ``cyclic`` holds every edge that
    lies on a cycle."""

    def __init__(self, edges: tuple[Edge, ...], start: str | None, unreachable: frozenset[str] = frozenset(),
                 dangling: tuple[Edge, ...] = (), cyclic: frozenset[Edge] = frozenset()) -> None:
        assign(self, locals())


def route(blocks: Sequence[ScopeBlock], routed: bool, finally_label: str | None = None) -> Route:
    """The route of one scope. ``routed`` is False for a v1 definition (list order, loop
    bodies included); ``finally_label`` is given for the top level only: that block is taken
    out and runs last, in v1 and v2 alike."""
    blocks = strip_finally(blocks, finally_label)
    if not blocks:
        return Route((), None)
    if not routed:
        return Route(tuple(Edge(a.label, b.label, ("sequence",)) for a, b in zip(blocks, blocks[1:])), blocks[0].label)
    labels = {b.label for b in blocks}
    edges = edges_of(blocks)
    adjacency: dict[str, dict[str, Edge]] = {label: {} for label in labels}
    incoming: set[str] = set()
    for e in edges:
        if e.target in labels:
            adjacency[e.source].setdefault(e.target, e)
            incoming.add(e.target)
    start = next((b.label for b in blocks if b.label not in incoming), None)
    reached: set[str] = set()
    todo = [start] if start is not None else []
    while todo:
        label = todo.pop()
        if label not in reached:
            reached.add(label)
            todo.extend(adjacency[label])
    looping = [set(c) for c in strongly_connected(adjacency) if len(c) > 1 or any(n in adjacency[n] for n in c)]
    cyclic = frozenset(e for e in edges for c in looping if e.source in c and e.target in c)
    return Route(
        tuple(edges),
        start,
        frozenset(labels - reached) if start is not None else frozenset(),
        tuple(e for e in edges if e.target not in labels),
        cyclic,
    )


# --------------------------------------------------------------------------- a definition


class Scope(Record):
    """One routed list of blocks: ``loop`` is the loop's ScopeBlock (None at top level)."""

    def __init__(self, loop: ScopeBlock | None, blocks: tuple[ScopeBlock, ...]) -> None:
        assign(self, locals())


def check_definition(scopes: Iterable[Scope], version: int, finally_label: str | None,
                     loop_merges: bool = True) -> list[tuple[int, Finding]]:
    """Stage F for a whole definition: (scope position, finding) for every scope, in the
    order given (the top level first, then loop bodies depth first). A definition whose
    version is below 2 is not graph-checked at all, loop bodies included; an empty scope
    passes. ``loop_merges``: whether loop bodies resolve merge edges (1.0.44 on)."""
    if version < 2:
        return []
    out: list[tuple[int, Finding]] = []
    for i, scope in enumerate(scopes):
        loop_label = scope.loop.label if scope.loop is not None else None
        fin = finally_label if scope.loop is None else None
        out.extend((i, f) for f in check_scope(scope.blocks, loop_label, fin, loop_merges or scope.loop is None))
    return out


# --------------------------------------------------------------------------- from a workflow view


def scopes(wf: Workflow) -> list[tuple[Block | None, list[Block]]]:
    """Graph scopes in the order stage F validates them: the top level, then every loop body
    (depth first)."""
    out: list[tuple[Block | None, list[Block]]] = [(None, wf.blocks)]
    for b in wf.all_blocks:
        if b.is_loop:
            out.append((b, b.children))
    return out


def scope_block(block: Any) -> ScopeBlock:
    """A view Block as the graph sees it."""
    data = block.data
    branches: tuple[Any, ...] = ()
    if block.tag == "conditional" and isinstance(data.get("branch_conditions"), list):
        branches = tuple(br.get("next_block_label") if isinstance(br, dict) else None for br in data["branch_conditions"])
    return ScopeBlock(block.label, data.get("next_block_label"), block.tag == "conditional", branches, block)


def workflow_findings(wf: Any) -> list[tuple[int, Finding]]:
    """Stage F findings for a workflow view, computed once per workflow: (index of the scope
    in ``scopes(wf)``, finding). A scope holding a block without a usable label
    is skipped: the request model refuses it before stage F."""
    cached = wf.cache.get("graph_findings")
    if cached is not None:
        return cached

    graph_scopes = []
    for loop, members in scopes(wf):
        if any(b.label is None for b in members) or (loop is not None and loop.label is None):
            graph_scopes.append(Scope(None if loop is None else scope_block(loop), ()))
            continue
        graph_scopes.append(Scope(None if loop is None else scope_block(loop), tuple(scope_block(b) for b in members)))
    cached = (check_definition(graph_scopes, wf.version, wf.finally_label, wf.release.has_check("loop_merge_edges"))
              if wf.blocks else [])
    wf.cache["graph_findings"] = cached
    return cached


def edge_path(edge: Edge, blocks_by_label: dict[str, Any]) -> tuple:
    """Where an edge is written: the ``next_block_label`` or branch target that makes it; for
    an implicit merge edge, the conditional's ``next_block_label`` (its merge point)."""
    kind = edge.via[0]
    if kind == "branch":
        return blocks_by_label[edge.source].path + ("branch_conditions", edge.via[1], "next_block_label")
    if kind == "merge":
        return blocks_by_label[edge.via[1]].path + ("next_block_label",)
    return blocks_by_label[edge.source].path + ("next_block_label",)


#: blocks of a cycle a message names before "… N more"
ROUTE_SHOWN = 10


def route_text(cycle: Sequence[str]) -> str:
    """``a → b → a`` for the cycle ("a", "b"); a long cycle is ``a → … 90 more → j → a``
    (its first and last blocks shown), so a message stays short."""
    if len(cycle) <= ROUTE_SHOWN:
        return " → ".join([*cycle, cycle[0]])
    head, tail = cycle[: ROUTE_SHOWN // 2], cycle[-(ROUTE_SHOWN // 2):]
    return " → ".join([*head, f"… {len(cycle) - len(head) - len(tail)} more", *tail, cycle[0]])


def scope_words(loop_label: str | None) -> str:
    return f"loop '{loop_label}'" if loop_label is not None else "the top level"
