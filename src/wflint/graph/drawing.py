"""The drawing description: what a picture of a workflow shows, in no syntax.

``build.drawing`` fills it from a workflow view, its routes and its diagnostics; each renderer
(``mermaid``, ``dot``) turns it into text with one pure function. Identifiers here are
generated (``b1``, ``s0`` ...), never taken from the workflow, so no renderer has to worry
about a label that is a keyword of its syntax; only the texts are the author's, and each
renderer escapes them.
"""

from __future__ import annotations

import textwrap
import unicodedata
from dataclasses import dataclass, field

LEGEND_WIDTH = 72

#: node kinds
BLOCK, PARAM, START, END, MISSING, LEGEND = "block", "param", "start", "end", "missing", "legend"

#: edge kinds: how execution (or data) gets from one node to the next
SEQUENCE = "sequence"  # v1: the next block in the list
NEXT = "next"  # next_block_label
BRANCH = "branch"  # one branch of a conditional (``default`` marks the default branch)
MERGE = "merge"  # a branch chain continues at its conditional's merge point (derived)
DANGLING = "dangling"  # a reference to a label the scope does not have
BODY = "body"  # a loop runs its body
STARTS = "starts"  # a scope's start marker to its first block
ENDS = "ends"  # the route ends here
FINALLY = "finally"  # after the end, the finally block runs
READS = "reads"  # a block reads a parameter (--parameters)


@dataclass
class Node:
    id: str
    kind: str
    #: lines of text, the first one is the title (the block's label)
    lines: list[str]
    #: None, "warning" or "error": the worst diagnostic on it
    severity: str | None = None
    unreachable: bool = False
    is_finally: bool = False
    #: full messages of the diagnostics on it (a tooltip where the syntax has one)
    messages: list[str] = field(default_factory=list)
    #: ``wflint graph --coverage``: no test case ran this block
    untested: bool = False
    #: ``wflint graph --diff``: "added", "removed" or "changed" (renamed, moved or edited)
    change: str | None = None


@dataclass
class Edge:
    source: str
    target: str
    kind: str
    label: str | None = None
    default: bool = False
    cyclic: bool = False
    #: the branch of its conditional this edge is (BRANCH edges), for coverage
    branch_index: int | None = None
    #: ``wflint graph --coverage``: no test case took this branch
    untested: bool = False
    #: ``wflint graph --diff``: "added" or "removed"
    change: str | None = None


@dataclass
class Group:
    """A nested cluster (a loop body; the parameters). ``members`` are node ids and groups,
    in the order they are drawn."""

    id: str
    title: str
    members: list["str | Group"] = field(default_factory=list)
    #: a scope the service refuses (no start, unreachable blocks, a cycle, a dangling edge)
    broken: bool = False


@dataclass
class LegendEntry:
    code: str
    name: str
    severity: str
    count: int
    #: the first message of this code, to say what it means here
    example: str


@dataclass
class Drawing:
    title: str
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)
    #: the top level: node ids and groups in drawing order (the finally block last)
    members: list["str | Group"] = field(default_factory=list)
    legend: list[LegendEntry] = field(default_factory=list)
    #: problems that belong to no block (the definition, the file), as "CODE: message" lines
    notes: list[str] = field(default_factory=list)

    def add(self, node: Node, into: list) -> Node:
        self.nodes[node.id] = node
        into.append(node.id)
        return node

    #: the worst severity of the problems that belong to no block (shown on the title)
    notes_severity: str | None = None

    @property
    def legend_lines(self) -> list[str]:
        """The legend as text lines of at most ``LEGEND_WIDTH`` characters (every renderer
        shows the same words): the codes on the picture, the problems that belong to no
        block, what the styles mean."""
        mark = {"error": "✖", "warning": "⚠"}
        out = [f"{mark.get(e.severity, 'ℹ')} {e.code} {e.name} ×{e.count}" for e in self.legend]
        for note in self.notes:
            out += textwrap.wrap(note, LEGEND_WIDTH, initial_indent="• ", subsequent_indent="  ")
        if out:
            out += style_key(self)
        return out


def plain(text: str) -> str:
    """``text`` on one line: control characters and line or paragraph separators become
    spaces (no syntax can carry them inside a label, and a label is one line)."""
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)


def shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters: whitespace collapsed, an ellipsis if cut."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --------------------------------------------------------------------------- how things look
# One palette for every syntax, so a Mermaid comment and an SVG say the same thing.

RED, AMBER, GREY, BLUE, PURPLE, INK = "#c62828", "#b26a00", "#8a8a8a", "#1565c0", "#6a1b9a", "#37474f"
PINK = "#ad1457"  # coverage: what no test case exercised
GREEN = "#2e7d32"  # diff: added
CHANGE_BLUE = "#0277bd"  # diff: changed


@dataclass(frozen=True)
class Look:
    fill: str = "#ffffff"
    stroke: str = INK
    width: float = 1.0
    dashed: bool = False
    dotted: bool = False
    text: str = "#000000"
    double: bool = False


def node_look(node: Node) -> Look:
    if node.kind == MISSING:
        return Look(fill="#ffffff", stroke=RED, width=2, dashed=True, text=RED)
    if node.kind == START:
        return Look(fill="#fde2e1", stroke=RED, width=2, text=RED) if node.severity == "error" else Look(fill=INK, stroke=INK, text="#ffffff")
    if node.kind == END:
        return Look(fill="#ffffff", stroke=INK, text=INK)
    if node.kind == LEGEND:
        return Look(fill="#fafafa", stroke=GREY)
    fill, stroke, width = ("#e8eaf6", "#5c6bc0", 1.0) if node.kind == PARAM else ("#ffffff", INK, 1.0)
    if node.severity == "error":
        fill, stroke, width = "#fde2e1", RED, 2.5
    elif node.severity == "warning":
        fill, stroke, width = "#fff4ce", AMBER, 2.0
    if node.unreachable and node.severity is None:
        fill = "#eeeeee"
    if node.untested and node.severity is None:
        return Look(fill="#fce4ec", stroke=PINK, width=2, dashed=True, text=PINK, double=node.is_finally)
    if node.change == "removed":
        return Look(fill="#f5f5f5", stroke=GREY, width=1.5, dashed=True, text=GREY)
    if node.change is not None:
        # a problem keeps its fill; the change shows in the outline
        stroke = GREEN if node.change == "added" else CHANGE_BLUE
        if node.severity is None:
            fill = "#e8f5e9" if node.change == "added" else "#e1f5fe"
        return Look(fill=fill, stroke=stroke, width=3, text="#000000", double=node.is_finally)
    return Look(fill=fill, stroke=stroke, width=width, dashed=node.unreachable,
                text="#555555" if node.unreachable else "#000000", double=node.is_finally)


def edge_look(edge: Edge) -> Look:
    if edge.change == "removed":
        return Look(stroke=GREY, width=1.5, dashed=True)
    if edge.change == "added" and not edge.cyclic:
        return Look(stroke=GREEN, width=3)
    if edge.untested and not edge.cyclic:
        return Look(stroke=PINK, width=2, dashed=True)
    if edge.cyclic:
        return Look(stroke=RED, width=3)
    if edge.kind == DANGLING:
        return Look(stroke=RED, width=2, dashed=True)
    if edge.kind == MERGE:
        return Look(stroke=BLUE, width=1.5, dashed=True)
    if edge.kind == BODY:
        return Look(stroke=PURPLE, width=1.5, dashed=True)
    if edge.kind in (STARTS, ENDS):
        return Look(stroke=GREY)
    if edge.kind == FINALLY:
        return Look(stroke=INK, dotted=True, width=1.5)
    if edge.kind == READS:
        return Look(stroke="#5c6bc0", dotted=True)
    if edge.kind == BRANCH and edge.default:
        return Look(stroke=INK, width=2)
    return Look(stroke=INK, width=1.2)


def style_key(drawing: Drawing) -> list[str]:
    """What the styles mean, for those the drawing uses."""
    nodes, edges = drawing.nodes.values(), drawing.edges
    out = []
    if any(n.kind == BLOCK and n.severity == "error" for n in nodes):
        out.append("red block: has errors")
    if any(n.kind == BLOCK and n.severity == "warning" for n in nodes):
        out.append("amber block: has warnings")
    if any(n.unreachable for n in nodes):
        out.append("dashed block: never reached")
    if any(e.cyclic for e in edges):
        out.append("thick red arrows: a cycle")
    if any(n.kind == MISSING for n in nodes):
        out.append("dashed red box: a label that does not exist")
    if any(e.kind == MERGE for e in edges):
        out.append("blue dashed arrows: merge edges the service derives")
    if any(n.untested for n in nodes) or any(e.untested for e in edges):
        out.append("pink dashed: no test case runs this block or takes this branch")
    if any(n.change == "added" for n in nodes) or any(e.change == "added" for e in edges):
        out.append("green: added by the change")
    if any(n.change == "changed" for n in nodes):
        out.append("blue outline: changed (edited, renamed or moved)")
    if any(n.change == "removed" for n in nodes) or any(e.change == "removed" for e in edges):
        out.append("grey dashed: removed by the change")
    return out
