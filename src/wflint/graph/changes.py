"""``wflint graph --diff``: the new version's routing, with what the change added, removed and
changed marked on it (``wflint.diff`` says what changed; this module only draws it).

Blocks the change removed and edges it took away are drawn as grey dashed ghosts beside the
new routing, so one picture shows both what is there now and what went.
"""

from __future__ import annotations

from ..api import inspect_bytes
from ..project.config import Config
from ..diff import FileDiff, Pair
from ..diff.changes import diff_pair
from ..diff.show import edge as edge_words
from . import Picture
from . import drawing as d
from .build import drawing as build_drawing


def diff_pictures(pairs: list[Pair], config: Config | None = None, *, parameters: bool = False) -> list[Picture]:
    """A picture of the new side of every pair, with the pair's changes marked."""
    config = config or Config()
    out: list[Picture] = []
    for pair in pairs:
        if pair.new is None:
            continue
        inspection = inspect_bytes(pair.new.data, pair.new.path, config, require_workflow=pair.old is not None)
        if inspection is None:
            continue
        workflows = [wf for wf in inspection.workflows if not wf.schema_only]
        if not workflows:
            errors = [x for x in inspection.diagnostics if x.severity == "error"] or inspection.diagnostics
            why = f"{errors[0].code} {errors[0].message}" if errors else "the file holds no workflow"
            out.append(Picture(pair.new.path, 0, None, inspection.diagnostics, why))
            continue
        picture = Picture(pair.new.path, 0, build_drawing(workflows[0], inspection.diagnostics, parameters=parameters),
                          inspection.diagnostics)
        mark(picture, diff_pair(pair, config, run_cases=False))
        out.append(picture)
    return out


def mark(picture: Picture, change: FileDiff) -> None:
    drawing = picture.drawing
    if drawing is None:
        return
    blocks = {n.lines[0]: n for n in drawing.nodes.values() if n.kind == d.BLOCK and n.lines}
    s = change.structure
    if change.old_path is None:
        for node in blocks.values():
            node.change = "added"
        drawing.notes.append("changes: a new workflow")
        return
    if s is None:
        drawing.notes.append(f"changes: {change.status}")
        return
    ghosts: dict[str, str] = {}
    for b in s.changed_blocks:
        node = blocks.get(b.label)
        if b.status == "removed":
            ghost = drawing.add(d.Node(f"x{len(ghosts)}", d.BLOCK, [b.label, f"removed · {b.block_type or '?'}"],
                                       change="removed"), drawing.members)
            ghosts[b.label] = ghost.id
        elif node is not None:
            node.change = "added" if b.status == "added" else "changed"
            facts = [f"was {b.renamed_from}"] if b.renamed_from else []
            facts += ["moved"] if b.moved else []
            facts += [f"{len(b.fields)} field{'s' if len(b.fields) != 1 else ''} changed"] if b.fields else []
            if facts:
                node.lines.append(d.shorten(", ".join(facts), 44))
    ids = {label: n.id for label, n in blocks.items()}
    added = {(e.source, e.target) for e in s.edges_added}
    for edge in drawing.edges:
        source, target = drawing.nodes.get(edge.source), drawing.nodes.get(edge.target)
        if source is not None and target is not None and (source.lines[0], target.lines[0]) in added:
            edge.change = "added"
    for e in s.edges_removed:
        source, target = ids.get(e.source) or ghosts.get(e.source), ids.get(e.target) or ghosts.get(e.target)
        if source is not None and target is not None:
            drawing.edges.append(d.Edge(source, target, d.NEXT, "removed", change="removed"))
        else:
            drawing.notes.append("removed edge: " + edge_words(e))
    counts = [f"{n} {what}" for n, what in (
        (sum(b.status == "added" for b in s.changed_blocks), "added"),
        (sum(b.status == "removed" for b in s.changed_blocks), "removed"),
        (sum(b.status == "kept" for b in s.changed_blocks), "changed")) if n]
    drawing.notes.append(f"changes from {change.old_path}: " + (f"blocks {', '.join(counts)}; " if counts else "")
                         + f"edges +{len(s.edges_added)} -{len(s.edges_removed)}")
