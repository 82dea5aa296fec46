"""A drawing as Graphviz DOT: one pure function, ``render``.

Every identifier is generated (``b3``) and every text is a double-quoted DOT string, in which
the backslash (Graphviz reads ``\\n``, ``\\l``, ``\\N`` ... as escapes in labels), the double
quote and the ampersand (Graphviz decodes entities such as ``&amp;`` in every label) are
escaped; control characters become spaces. Node identifiers are quoted as
well, so no label or identifier can ever read as a keyword (``node``, ``edge``, ``subgraph``).
"""

from __future__ import annotations


from .drawing import AMBER, BLOCK, END, LEGEND, MISSING, PARAM, RED, START, Drawing, Edge, Group, Node, edge_look, node_look, plain

FONT = "Helvetica"


def quote(text: str) -> str:
    """``text`` as a DOT double-quoted string whose label shows exactly ``text``."""
    clean = plain(text)
    return '"' + clean.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;") + '"'


def _lines(lines: list[str], *, left: bool = False) -> str:
    """Several label lines: centred (``\\n``) or left-justified (``\\l``)."""
    sep = "\\l" if left else "\\n"
    body = sep.join(quote(line)[1:-1] for line in lines)
    return '"' + body + (sep if left else "") + '"'


def _attrs(pairs: dict[str, str]) -> str:
    return "[" + ", ".join(f"{k}={v}" for k, v in pairs.items()) + "]"


def _node(node: Node) -> str:
    look = node_look(node)
    style = ["filled"]
    attrs: dict[str, str] = {"label": _lines(node.lines, left=node.kind == LEGEND)}
    if node.kind == START:
        attrs.update(shape="circle" if node.severity is None else "octagon", fontsize="9", margin="0.02")
    elif node.kind == END:
        attrs.update(shape="doublecircle", fontsize="9", margin="0.02")
    elif node.kind == PARAM:
        attrs["shape"] = "parallelogram"
    elif node.kind == LEGEND:
        attrs.update(shape="note", fontsize="10")
    else:
        attrs["shape"] = "box"
        if node.kind in (BLOCK, MISSING):
            style.append("rounded")
    if look.dashed:
        style.append("dashed")
    attrs.update(style=quote(",".join(style)), fillcolor=quote(look.fill), color=quote(look.stroke),
                 fontcolor=quote(look.text), penwidth=str(look.width))
    if look.double:
        attrs["peripheries"] = "2"
    if node.messages:
        attrs["tooltip"] = quote(" | ".join(node.messages))
    return f"{quote(node.id)} {_attrs(attrs)};"


def _edge(edge: Edge) -> str:
    look = edge_look(edge)
    attrs: dict[str, str] = {"color": quote(look.stroke), "penwidth": str(look.width)}
    if look.dashed or look.dotted:
        attrs["style"] = "dashed" if look.dashed else "dotted"
    if edge.label:
        attrs["label"] = quote(edge.label)
        attrs["fontcolor"] = quote(look.stroke)
    if edge.kind == "reads":
        attrs["arrowhead"] = "open"
    return f"{quote(edge.source)} -> {quote(edge.target)} {_attrs(attrs)};"


def _members(drawing: Drawing, members: list, indent: str) -> list[str]:
    out: list[str] = []
    for m in members:
        if isinstance(m, Group):
            out.append(f"{indent}subgraph {quote('cluster_' + m.id)} {{")
            color = "#c62828" if m.broken else "#9e9e9e"
            out.append(f"{indent}  label={quote(m.title)}; style=\"rounded,dashed\"; color={quote(color)}; "
                       f"penwidth={'2' if m.broken else '1'}; fontcolor={quote(color)};")
            out.extend(_members(drawing, m.members, indent + "  "))
            out.append(f"{indent}}}")
        else:
            out.append(indent + _node(drawing.nodes[m]))
    return out


def render(drawing: Drawing) -> str:
    """The DOT text of a drawing (a ``digraph``, ending with a newline)."""
    title, color = drawing.title, "#000000"
    if drawing.notes_severity is not None:
        title = ("✖ " if drawing.notes_severity == "error" else "⚠ ") + title + " (see Problems)"
        color = RED if drawing.notes_severity == "error" else AMBER
    out = [
        "digraph workflow {",
        f"  graph [label={quote(title)}, fontcolor={quote(color)}, labelloc=t, fontname={quote(FONT)}, fontsize=14, rankdir=TB, "
        "nodesep=0.35, ranksep=0.4];",
        f"  node [fontname={quote(FONT)}, fontsize=11, margin=\"0.15,0.06\"];",
        f"  edge [fontname={quote(FONT)}, fontsize=9, arrowsize=0.7];",
    ]
    out.extend(_members(drawing, drawing.members, "  "))
    out.extend("  " + _edge(e) for e in drawing.edges)
    legend = drawing.legend_lines
    if legend:
        out.append("  " + _node(Node("legend", LEGEND, ["Problems", *legend])))
        out.append('  { rank=sink; "legend"; }')
    out.append("}")
    return "\n".join(out) + "\n"
