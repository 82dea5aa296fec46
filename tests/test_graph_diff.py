"""``wflint graph --diff``: the new routing with what a change added, removed and changed marked."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_graph_render import dot_read, dot_texts, mermaid_ok, mermaid_parser  # noqa: F401 - a fixture

from wflint.cli import main
from wflint.diff import from_files
from wflint.graph import dot, mermaid
from wflint.graph.changes import diff_pictures
from wflint.graph.drawing import plain

ROOT = Path(__file__).resolve().parent.parent
DIFF = ROOT / "fixtures" / "diff"
BASE = DIFF / "orders.yaml"


def picture(name: str):
    [p] = diff_pictures([from_files(str(BASE), str(DIFF / name))])
    return p.drawing


def _node(drawing, label):
    return next(n for n in drawing.nodes.values() if n.lines and n.lines[0] == label)


def test_an_added_branch_marks_the_new_block_its_edges_and_the_changed_conditional():
    drawing = picture("orders.branch.yaml")
    assert _node(drawing, "apac_path").change == "added"
    assert _node(drawing, "choose").change == "changed"
    assert _node(drawing, "eu_path").change is None
    added = {(drawing.nodes[e.source].lines[0], drawing.nodes[e.target].lines[0]) for e in drawing.edges if e.change == "added"}
    assert added == {("choose", "apac_path"), ("apac_path", "summarize")}
    text = mermaid.render(drawing)
    assert "green: added by the change" in text and "#2e7d32" in text
    assert 'color="#2e7d32"' in dot.render(drawing)


def test_a_removed_block_is_a_ghost_with_its_removed_edge():
    drawing = picture("orders.removed_output.yaml")
    ghost = _node(drawing, "fetch")
    assert ghost.change == "removed" and "removed · code" in ghost.lines
    [edge] = [e for e in drawing.edges if e.change == "removed"]
    assert (edge.source, drawing.nodes[edge.target].lines[0]) == (ghost.id, "choose")
    assert "grey dashed: removed by the change" in mermaid.render(drawing)


def test_a_rename_says_what_the_block_was_called():
    drawing = picture("orders.renamed.yaml")
    node = _node(drawing, "europe")
    assert node.change == "changed" and "was eu_path" in node.lines
    assert not any(e.change for e in drawing.edges)


def test_formatting_only_marks_nothing():
    drawing = picture("orders.keyorder.yaml")
    assert not any(n.change for n in drawing.nodes.values()) and not any(e.change for e in drawing.edges)


def run(*args: str):
    return CliRunner().invoke(main, ["graph", *args], catch_exceptions=False)


def test_the_command_line():
    r = run("--diff", str(BASE), str(DIFF / "orders.branch.yaml"))
    assert r.exit_code == 0 and "flowchart TB" in r.stdout and "#2e7d32" in r.stdout
    r = run("--diff", str(BASE))
    assert r.exit_code == 2 and "give two files" in r.stderr
    r = run("--git", "HEAD", str(BASE))
    assert r.exit_code == 2 and "--diff" in r.stderr


def test_git_revisions(tmp_path):
    repo = tmp_path
    (repo / "orders.yaml").write_text(BASE.read_text())

    def git(*args):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args], cwd=repo, check=True,
                       capture_output=True)

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "one")
    (repo / "orders.yaml").write_text((DIFF / "orders.branch.yaml").read_text())
    from wflint.diff import from_git

    [p] = diff_pictures(from_git("HEAD", [], cwd=str(repo)))
    assert _node(p.drawing, "apac_path").change == "added"


CHANGES = sorted(p.name for p in DIFF.glob("orders.*") if p.name != "orders.test.yaml")


@pytest.mark.parametrize("name", CHANGES)
def test_mermaid_and_graphviz_read_every_diff_picture(name, mermaid_parser):
    drawing = picture(name)
    result = mermaid_ok(mermaid_parser, mermaid.render(drawing))
    for node in drawing.nodes.values():
        assert result["vertices"][node.id] == "<br>".join(plain(line) for line in node.lines), name
    graph = dot_read(dot.render(drawing))
    shown = {o["name"]: dot_texts(o) for o in graph.get("objects", [])}
    for node in drawing.nodes.values():
        assert shown[node.id] == [plain(line) for line in node.lines]
