"""From a workflow view and its diagnostics to a drawing description.

The routes come from ``workflow.routing.route``, the model the v2 rules judge by: list order in
a v1 definition, ``next_block_label``, branches and the merge edges the service derives in a
v2 one, one scope per loop body, the finally block taken out and run last. Diagnostics are
attributed to the innermost block (or parameter) whose text holds their start; the rest
become notes under the legend.
"""

from __future__ import annotations

from collections import Counter
from itertools import count
from typing import Any, Iterable

from ..core.diagnostics import SEVERITY_RANK, Diagnostic
from ..workflow import routing
from ..workflow.view import Block, Workflow
from . import drawing as d
from .drawing import Drawing, Edge, Group, LegendEntry, Node, shorten

HINT_LIMIT = 44
EDGE_LABEL_LIMIT = 40
LEGEND_LIMIT = 200

#: text fields that say what a block does, best first (the first non-empty one is shown)
HINT_FIELDS = (
    "navigation_goal", "data_extraction_goal", "prompt", "complete_criterion", "terminate_criterion",
    "query", "subject", "url", "file_url", "spreadsheet_url", "workflow_permanent_id", "path",
)


def drawing(wf: Workflow, diagnostics: Iterable[Diagnostic], *, parameters: bool = False, title: str | None = None) -> Drawing:
    """The drawing of one workflow. ``diagnostics`` are the file's findings that belong to it."""
    return _Builder(wf, list(diagnostics), parameters).build(title or _title(wf))


def _title(wf: Workflow) -> str:
    title = wf.request.get("title")
    name = title if isinstance(title, str) and title.strip() else wf.path
    return f"{shorten(name, 60)} (v{wf.version})"


def hint(block: Block) -> str | None:
    """A few words on what the block does: its goal, prompt or URL; a loop's source."""
    data = block.data
    if block.tag == "for_loop":
        source = data.get("loop_over_parameter_key") or data.get("loop_variable_reference")
        return f"over {source}" if isinstance(source, str) and source else None
    if block.tag == "while_loop":
        cond = data.get("condition")
        expr = cond.get("expression") if isinstance(cond, dict) else None
        return f"while {expr}" if isinstance(expr, str) else None
    if block.tag == "conditional":
        branches = data.get("branch_conditions")
        n = len(branches) if isinstance(branches, list) else 0
        return f"{n} branch{'es' if n != 1 else ''}"
    if block.tag == "wait" and data.get("wait_sec") is not None:
        return f"{data.get('wait_sec')} s"
    if block.tag == "code" and isinstance(data.get("code"), str):
        first = next((line for line in data["code"].splitlines() if line.strip()), "")
        return first.strip() or None
    for name in HINT_FIELDS:
        value = data.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def branch_label(branch: Any) -> tuple[str, bool]:
    """(the words on a branch's edge, whether it is the default branch)."""
    if not isinstance(branch, dict):
        return "?", False
    default = branch.get("is_default") is True
    description = branch.get("description")
    criteria = branch.get("criteria")
    expression = criteria.get("expression") if isinstance(criteria, dict) else None
    words = description if isinstance(description, str) and description.strip() else expression
    words = words if isinstance(words, str) and words.strip() else None
    if default:
        return ("default: " + words if words else "default"), True
    return words or "(no condition)", False


class _Builder:
    def __init__(self, wf: Workflow, diagnostics: list[Diagnostic], parameters: bool) -> None:
        self.wf = wf
        self.parameters = parameters
        self.ids = {kind: count() for kind in ("b", "p", "s", "e", "m", "c")}
        self.on: dict[int, list[Diagnostic]] = {}  # id(block or param) -> its diagnostics
        self.notes: list[Diagnostic] = []
        self.diagnostics = diagnostics
        self.block_nodes: dict[int, str] = {}  # id(view block) -> node id
        self.param_nodes: dict[str, str] = {}  # parameter key -> node id

    def new_id(self, kind: str) -> str:
        return f"{kind}{next(self.ids[kind])}"

    # -- diagnostics -----------------------------------------------------------------------
    def _attribute(self) -> None:
        owners: list[tuple[tuple, tuple, int, Any]] = []
        for b in self.wf.all_blocks:
            owners.append((*self._span(b.path), b.depth + 1, b))
        if self.parameters:
            owners.extend((*self._span(p.path), 1, p) for p in self.wf.params)
        for diag in self.diagnostics:
            at = (diag.line, diag.column)
            inside = [o for o in owners if o[0] <= at < o[1]]
            if inside:
                owner = max(inside, key=lambda o: o[2])[3]
                self.on.setdefault(id(owner), []).append(diag)
            else:
                self.notes.append(diag)

    def _span(self, path: tuple) -> tuple[tuple[int, int], tuple[int, int]]:
        node = self.wf.node(path)
        if node is None:
            return (0, 0), (0, 0)
        return (node.start.line, node.start.col), (node.end.line, node.end.col)

    def _mark(self, node: Node, owner: Any) -> None:
        diags = self.on.get(id(owner), [])
        if not diags:
            return
        worst = max(diags, key=lambda x: SEVERITY_RANK[x.severity])
        if worst.severity in ("warning", "error"):
            node.severity = worst.severity
        mark = {"error": "✖", "warning": "⚠"}
        codes = sorted({(-SEVERITY_RANK[x.severity], x.code, x.severity) for x in diags})
        node.lines.append(" ".join(f"{mark.get(sev, 'ℹ')} {code}" for _, code, sev in codes))
        node.messages = [f"{x.code} {x.message}" for x in diags]

    # -- the picture -----------------------------------------------------------------------
    def build(self, title: str) -> Drawing:
        self._attribute()
        self.out = Drawing(title)
        if self.parameters and self.wf.params:
            self._parameters()
        self._scope(self.wf.blocks, None, self.out.members)
        if self.parameters:
            self._reads()
        self._legend()
        return self.out

    def _block_node(self, block: Block, into: list, *, unreachable: bool = False, is_finally: bool = False) -> Node:
        lines = [block.label if block.label is not None else "(no label)"]
        kind = block.tag or (block.data.get("block_type") if isinstance(block.data.get("block_type"), str) else "?")
        lines.append(("finally · " if is_finally else "") + kind + (" (guessed)" if block.tag_guessed else ""))
        h = hint(block)
        if h:
            lines.append(shorten(h, HINT_LIMIT))
        node = self.out.add(Node(self.new_id("b"), d.BLOCK, lines, unreachable=unreachable, is_finally=is_finally), into)
        if unreachable:
            node.lines.append("never reached")
        self._mark(node, block)
        self.block_nodes[id(block)] = node.id
        return node

    def _scope(self, members: list[Block], loop: Block | None, into: list) -> str:
        """Draw one scope (the top level or a loop body) into ``into``; returns the id of its
        start marker."""
        fin = self.wf.finally_label if loop is None else None
        scope = [routing.ScopeBlock(b.label if b.label is not None else f"\0{i}", *_routing_fields(b), ref=b)
                 for i, b in enumerate(members)]
        route = routing.route(scope, self.wf.version >= 2, fin)
        finally_block = next((b for b in members if fin is not None and b.label == fin), None)
        routed = [sb for sb in scope if sb.ref is not finally_block]

        start = self.out.add(Node(self.new_id("s"), d.START, ["start" if loop is None else "body start"]), into)
        if route.start is None and routed:
            start.lines, start.severity = ["no start block"], "error"
        by_label: dict[str, str] = {}
        for sb in routed:
            node = self._block_node(sb.ref, into, unreachable=sb.label in route.unreachable)
            by_label.setdefault(sb.label, node.id)
            if sb.ref.is_loop:
                self._body(sb.ref, node, into)
        end = self.out.add(Node(self.new_id("e"), d.END, ["end" if loop is None else "body end"]), into)

        if route.start is not None:
            self.out.edges.append(Edge(start.id, by_label[route.start], d.STARTS))
        elif not routed:
            self.out.edges.append(Edge(start.id, end.id, d.ENDS))  # an empty scope
        self._route_edges(routed, route, by_label, into)
        self._ends(routed, route, by_label, end.id, fin)
        if loop is not None and not any(e.target == end.id for e in self.out.edges):
            into.remove(end.id)  # a body whose route never ends (a cycle): no end to draw
            del self.out.nodes[end.id]
        if loop is None and fin is not None:
            self._finally(finally_block, fin, end.id, by_label, into)
        return start.id

    def _route_edges(self, scope: list[routing.ScopeBlock], route: routing.Route, by_label: dict[str, str], into: list) -> None:
        """The route's edges; a target the scope does not have is a visible "missing" node."""
        missing: dict[str, str] = {}
        kinds = {"next": d.NEXT, "sequence": d.SEQUENCE, "branch": d.BRANCH, "merge": d.MERGE}
        for e in route.edges:
            kind, label, default = kinds[e.via[0]], None, False
            if kind == d.BRANCH:
                source_block = next(sb for sb in scope if sb.label == e.source)
                label, default = branch_label(_branches(source_block)[e.via[1]])
                label = shorten(label, EDGE_LABEL_LIMIT)
            elif kind == d.MERGE:
                label = f"merge point of {shorten(e.via[1], 24)}"
            target = by_label.get(e.target)
            if target is None:
                kind = d.DANGLING
                if e.target not in missing:
                    missing[e.target] = self._missing(e.target, "no such block here", into)
                target = missing[e.target]
            self.out.edges.append(Edge(by_label[e.source], target, kind, label, default, e in route.cyclic,
                                       branch_index=e.via[1] if kind in (d.BRANCH, d.DANGLING) and e.via[0] == "branch" else None))

    def _ends(self, scope: list[routing.ScopeBlock], route: routing.Route, by_label: dict[str, str], end: str, fin: str | None) -> None:
        """Edges to the end: from every block with no way on, and (v2) from every branch
        without a target or aimed at the finally block (the service cuts that edge)."""
        has_out = {e.source for e in route.edges}
        v2 = self.wf.version >= 2
        for sb in scope:
            source = by_label[sb.label]
            if v2 and sb.conditional and _branches(sb):
                for i, branch in enumerate(_branches(sb)):
                    target = sb.branches[i]
                    if not isinstance(target, str) or not target or target == fin:
                        label, default = branch_label(branch)
                        self.out.edges.append(Edge(source, end, d.BRANCH, shorten(label, EDGE_LABEL_LIMIT), default,
                                                   branch_index=i))
            elif sb.label not in has_out:
                self.out.edges.append(Edge(source, end, d.ENDS))

    def _finally(self, block: Block | None, fin: str, end: str, by_label: dict[str, str], into: list) -> None:
        """The finally block, after the end; a reference from it (WF204) is drawn too."""
        if block is None:
            node_id = self._missing(fin, "finally_block_label names no top-level block", into)
            self.out.edges.append(Edge(end, node_id, d.DANGLING, "finally"))
            return
        node = self._block_node(block, into, is_finally=True)
        if block.is_loop:
            self._body(block, node, into)
        self.out.edges.append(Edge(end, node.id, d.FINALLY, "finally"))
        if block.next_label is not None:
            target = by_label.get(block.next_label) or self._missing(block.next_label, "no such block here", into)
            self.out.edges.append(Edge(node.id, target, d.DANGLING, "not allowed: the finally block runs last"))

    def _missing(self, label: str, why: str, into: list) -> str:
        return self.out.add(Node(self.new_id("m"), d.MISSING, ["missing: " + label, why], severity="error"), into).id

    def _body(self, loop: Block, node: Node, into: list) -> None:
        group = Group(self.new_id("c"), f"{loop.tag} {loop.label or ''}".strip() + ": body")
        into.append(group)
        body_start = self._scope(loop.children, loop, group.members)
        # the loop's node says what it iterates over (its hint): the edge only says how
        label = "while the condition holds" if loop.tag == "while_loop" else "for each item"
        self.out.edges.append(Edge(node.id, body_start, d.BODY, label))
        group.broken = any(self.out.nodes[m].severity == "error" or self.out.nodes[m].unreachable
                           for m in group.members if isinstance(m, str))

    # -- parameters --------------------------------------------------------------------------
    def _parameters(self) -> None:
        group = Group(self.new_id("c"), "parameters")
        self.out.members.append(group)
        for p in self.wf.params:
            lines = [p.key or "(no key)", p.type or "?"]
            node = self.out.add(Node(self.new_id("p"), d.PARAM, lines), group.members)
            self._mark(node, p)
            if p.key is not None:
                self.param_nodes.setdefault(p.key, node.id)

    def _reads(self) -> None:
        from ..checks.template_sites import reads

        pairs: list[tuple[str, Block]] = []
        for b in self.wf.all_blocks:
            keys = b.data.get("parameter_keys")
            if isinstance(keys, list):
                pairs.extend((k, b) for k in keys if isinstance(k, str))
            source = b.data.get("loop_over_parameter_key")
            if b.tag == "for_loop" and isinstance(source, str):
                pairs.append((source, b))
        pairs.extend((r.name, site.block) for site, r in reads(self.wf) if site.block is not None)
        seen: set[tuple[str, str]] = set()
        for key, block in pairs:
            source, target = self.param_nodes.get(key), self.block_nodes.get(id(block))
            if source is None or target is None or (source, target) in seen:
                continue
            seen.add((source, target))
            self.out.edges.append(Edge(source, target, d.READS))

    # -- legend ----------------------------------------------------------------------------
    def _legend(self) -> None:
        counts = Counter((x.code, x.name, x.severity) for x in self.diagnostics)
        first: dict[str, str] = {}
        for x in self.diagnostics:
            first.setdefault(x.code, x.message)
        for (code, name, severity), n in sorted(counts.items(), key=lambda kv: (-SEVERITY_RANK[kv[0][2]], kv[0][0])):
            self.out.legend.append(LegendEntry(code, name, severity, n, shorten(first[code], LEGEND_LIMIT)))
        self.out.notes = [shorten(f"{x.code} (line {x.line}): {x.message}", LEGEND_LIMIT) for x in self.notes]
        worst = max((SEVERITY_RANK[x.severity] for x in self.notes), default=None)
        if worst is not None and worst >= SEVERITY_RANK["warning"]:
            self.out.notes_severity = "error" if worst == SEVERITY_RANK["error"] else "warning"


def _routing_fields(block: Block) -> tuple[Any, bool, tuple[Any, ...]]:
    sb = routing.scope_block(block)
    return sb.next, sb.conditional, sb.branches


def _branches(sb: routing.ScopeBlock) -> list[Any]:
    branches = sb.ref.data.get("branch_conditions") if sb.conditional else None
    return branches if isinstance(branches, list) else []
