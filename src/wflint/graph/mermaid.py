"""A drawing as a Mermaid flowchart: one pure function, ``render``.

Identifiers are generated (``b3``), so a label such as ``end``, ``class`` or ``o`` can never
read as Mermaid syntax. Every text is written inside double quotes, where Mermaid still reads
entity codes (``#quot;``), HTML and, for a leading backtick, Markdown; so ``#``, the double
quote, ``<``, ``>``, ``&``, the backtick and the characters that delimit labels (``|``,
brackets, braces) are written as numeric entity codes, which Mermaid decodes back to the
character when it draws. Lines of a label are joined with ``<br/>``.
"""

from __future__ import annotations

import json

from .drawing import BLOCK, END, LEGEND, PARAM, START, Drawing, Edge, Group, Node, edge_look, node_look, plain

#: characters written as ``#<code>;`` inside a quoted Mermaid text
ESCAPED = set('#"<>&`|[](){}\\;')


def text(value: str) -> str:
    """``value`` for inside a quoted Mermaid label: the entity-coded form Mermaid decodes."""
    out = []
    for ch in plain(value):
        if ch in ESCAPED:
            out.append(f"#{ord(ch)};")
        else:
            out.append(ch)
    # Mermaid drops the last ";" of a line where "style" or "classDef" is followed by ":" and
    # "#" (to keep inline colours intact) before it decodes entities: hide those words
    return "".join(out).replace("style", "#115;tyle").replace("classDef", "#99;lassDef")


def front_matter_text(value: str) -> str:
    """The title, for the YAML front matter (written as a JSON string, which YAML reads the
    same). Mermaid shows it without decoding entities but cleans it as HTML, so ``<`` and
    ``>`` become the look-alike ``‹`` and ``›`` there."""
    return plain(value).replace("<", "‹").replace(">", "›")


def _label(lines: list[str]) -> str:
    return '"' + "<br/>".join(text(line) for line in lines) + '"'


def _shape(node: Node) -> tuple[str, str]:
    if node.kind == START:
        return "((", "))"
    if node.kind == END:
        return "(((", ")))"
    if node.kind == PARAM:
        return "[/", "/]"
    if node.kind == BLOCK:
        return "(", ")"
    return "[", "]"  # missing, legend


def _style(node: Node) -> str:
    look = node_look(node)
    parts = [f"fill:{look.fill}", f"stroke:{look.stroke}", f"stroke-width:{look.width:g}px", f"color:{look.text}"]
    if look.dashed:
        parts.append("stroke-dasharray:5 5")
    if look.double:
        parts[2] = f"stroke-width:{look.width + 3:g}px"
    return ",".join(parts)


def _arrow(edge: Edge) -> str:
    look = edge_look(edge)
    head = "-.->" if look.dashed or look.dotted else ("==>" if look.width >= 2 else "-->")
    return head + (f"|{_label([edge.label])}|" if edge.label else "")


def _edge_style(edge: Edge) -> str:
    look = edge_look(edge)
    return f"stroke:{look.stroke},stroke-width:{look.width:g}px"


def _members(drawing: Drawing, members: list, indent: str, styles: list[str]) -> list[str]:
    out: list[str] = []
    for m in members:
        if isinstance(m, Group):
            out.append(f"{indent}subgraph {m.id} [{_label([m.title])}]")
            out.extend(_members(drawing, m.members, indent + "  ", styles))
            out.append(f"{indent}end")
            color = "#c62828" if m.broken else "#9e9e9e"
            styles.append(f"style {m.id} fill:none,stroke:{color},stroke-width:{2 if m.broken else 1}px,stroke-dasharray:4 4")
        else:
            node = drawing.nodes[m]
            left, right = _shape(node)
            out.append(f"{indent}{node.id}{left}{_label(node.lines)}{right}")
            styles.append(f"style {node.id} {_style(node)}")
    return out


def render(drawing: Drawing) -> str:
    """The Mermaid text of a drawing (a ``flowchart``, ending with a newline)."""
    styles: list[str] = []
    title = drawing.title
    if drawing.notes_severity is not None:
        title = ("✖ " if drawing.notes_severity == "error" else "⚠ ") + title + " (see Problems)"
    out = ["---", f"title: {json.dumps(front_matter_text(title), ensure_ascii=False)}", "---", "flowchart TB"]
    out.extend(_members(drawing, drawing.members, "  ", styles))
    legend = drawing.legend_lines
    if legend:
        node = Node("legend", LEGEND, ["Problems", *legend])
        out.append(f"  legend[{_label(node.lines)}]")
        styles.append(f"style legend {_style(node)},text-align:left")
    for e in drawing.edges:
        out.append(f"  {e.source} {_arrow(e)} {e.target}")
    out.extend("  " + s for s in styles)
    by_look: dict[str, list[str]] = {}
    for i, e in enumerate(drawing.edges):
        by_look.setdefault(_edge_style(e), []).append(str(i))
    out.extend(f"  linkStyle {','.join(idx)} {look}" for look, idx in by_look.items())
    return "\n".join(out) + "\n"
