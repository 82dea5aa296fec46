"""``wflint graph``: golden pictures, the real parsers of both syntaxes, escaping, the CLI.

DOT goes through Graphviz's ``dot`` (installed by ``tools/install-test-tools.sh``), which must read it without a
single warning; Mermaid goes through Mermaid's own parser, run in Node from ``tests/mermaid``
(``npm ci`` there). Both checks compare the texts the parsers read with the texts drawn, so
an escaping mistake shows as a difference, not only as a syntax error.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graph_golden
from wflint.api import inspect_bytes
from wflint.graph import build, dot, mermaid, pictures, render
from wflint.graph.drawing import BLOCK, BRANCH, Drawing, Edge, Group, Node, plain

ROOT = Path(__file__).resolve().parents[1]
MERMAID_DIR = ROOT / "tests" / "mermaid"
REALISTIC = sorted(p for d in ("valid", "invalid") for p in (ROOT / "fixtures" / d).iterdir() if p.suffix in (".yaml", ".json"))
GOLDEN = graph_golden.fixture_files()


# --------------------------------------------------------------------------- the real parsers


def _dot_exe() -> str:
    exe = shutil.which("dot")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("Graphviz's dot is missing in CI: .ci/run should have installed it")
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz); tools/install-test-tools.sh installs it")
    return exe


def dot_read(text: str) -> dict:
    """Graphviz's reading of DOT text (``-Tjson``: every text it draws); fails on any warning."""
    r = subprocess.run([_dot_exe(), "-Tjson"], input=text.encode(), capture_output=True, timeout=60)
    assert r.returncode == 0 and not r.stderr, r.stderr.decode()
    return json.loads(r.stdout)


def dot_texts(obj: dict) -> list[str]:
    return [op["text"] for key in ("_ldraw_",) for op in obj.get(key, []) if op.get("op") == "T"]


class MermaidParser:
    """One Node process running Mermaid's parser, fed a diagram per line."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(["node", str(MERMAID_DIR / "check.mjs")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def parse(self, text: str) -> dict:
        self.proc.stdin.write(json.dumps({"text": text}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, "the Mermaid parser process died"
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def mermaid_parser():
    from node_tools import require

    require(MERMAID_DIR, MERMAID_DIR / "node_modules" / "mermaid", "Mermaid's parser (tests/mermaid)")
    parser = MermaidParser()
    yield parser
    parser.close()


def mermaid_ok(parser: MermaidParser, text: str) -> dict:
    result = parser.parse(text)
    assert result["ok"], result.get("error")
    assert result["type"].startswith("flowchart")
    return result


# --------------------------------------------------------------------------- golden pictures


@pytest.mark.parametrize("fmt", sorted(graph_golden.FORMATS))
@pytest.mark.parametrize("path", GOLDEN, ids=[p.name for p in GOLDEN])
def test_golden_picture(path, fmt):
    exp = graph_golden.expected_path(path, fmt)
    assert exp.exists(), f"missing {exp.name}: run python tests/graph_golden.py --update and read it"
    assert graph_golden.render(path, fmt) == exp.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", GOLDEN + REALISTIC, ids=[p.name for p in GOLDEN + REALISTIC])
def test_dot_reads_the_picture_without_a_warning(path):
    (picture,) = pictures([str(path)], parameters=True)
    graph = dot_read(render(picture, "dot"))
    shown = {o["name"]: dot_texts(o) for o in graph.get("objects", [])}
    for node in picture.drawing.nodes.values():
        assert shown[node.id] == [plain(line) for line in node.lines]


def test_mermaid_reads_every_picture(mermaid_parser):
    for path in GOLDEN + REALISTIC:
        (picture,) = pictures([str(path)], parameters=True)
        result = mermaid_ok(mermaid_parser, render(picture, "mermaid"))
        for node in picture.drawing.nodes.values():
            assert result["vertices"][node.id] == "<br>".join(plain(line) for line in node.lines), path
        labels = [e["text"] for e in result["edges"]]
        assert labels == [plain(e.label or "") for e in picture.drawing.edges], path


# --------------------------------------------------------------------------- what is drawn


def _picture(name: str):
    (picture,) = pictures([str(ROOT / "fixtures" / "graph" / name)])
    return picture.drawing


def _edges(drawing: Drawing) -> list[tuple[str, str, str, str | None]]:
    title = {n.id: n.lines[0] for n in drawing.nodes.values()}
    return [(title[e.source], title[e.target], e.kind, e.label) for e in drawing.edges]


def test_v1_runs_in_list_order_loop_bodies_too():
    edges = _edges(_picture("v1_list_order.yaml"))
    assert ("open_portal", "each_month", "sequence", None) in edges
    assert ("each_month", "settle", "sequence", None) in edges
    assert ("open_month", "download_pdf", "sequence", None) in edges


def test_v2_branches_default_and_derived_merges():
    drawing = _picture("v2_branches_merge.yaml")
    edges = _edges(drawing)
    assert ("route", "page_on_call", "branch", "Urgent tickets page the on-call engineer") in edges
    assert ("route", "close_ticket", "branch", "default") in edges
    assert ("page_on_call", "close_ticket", "merge", "merge point of route") in edges
    assert ("assign_billing", "close_ticket", "merge", "merge point of route") in edges
    # the conditional's own next_block_label is its merge point, not an edge
    assert sum(1 for e in edges if e[0] == "route") == 3
    assert next(e for e in drawing.edges if e.label == "default").default


def test_loop_bodies_are_nested_groups_with_their_own_start():
    drawing = _picture("nested_loops.yaml")
    outer = next(m for m in drawing.members if isinstance(m, Group))
    inner = next(m for m in outer.members if isinstance(m, Group))
    titles = lambda g: [drawing.nodes[m].lines[0] for m in g.members if isinstance(m, str)]  # noqa: E731
    assert titles(outer)[:2] == ["body start", "read_page"] and "open_order" not in titles(outer)
    assert titles(inner)[:3] == ["body start", "open_order", "check_paid"]
    edges = _edges(drawing)
    assert ("each_page", "body start", "body", "while the condition holds") in edges
    assert ("each_order", "body start", "body", "for each item") in edges


def test_finally_block_is_marked_and_drawn_last():
    drawing = _picture("finally_block.yaml")
    last = drawing.nodes[[m for m in drawing.members if isinstance(m, str)][-1]]
    assert last.lines[:2] == ["sign_out", "finally · action"] and last.is_finally
    edges = _edges(drawing)
    assert ("end", "sign_out", "finally", "finally") in edges
    # the branch aimed at the finally block ends the route (the service cuts that edge)
    assert ("find_room", "end", "branch", "default: No room free") in edges


def test_broken_routing_is_drawn():
    drawing = _picture("broken_routing.yaml")
    nodes = {n.lines[0]: n for n in drawing.nodes.values()}
    assert nodes["missing: finish_up"].severity == "error"
    assert nodes["missing: clean_up"].severity == "error"
    assert nodes["orphan"].unreachable and not nodes["open"].unreachable
    assert nodes["no start block"].severity == "error"  # the loop body a ⇄ b
    cyclic = {(drawing.nodes[e.source].lines[0], drawing.nodes[e.target].lines[0]) for e in drawing.edges if e.cyclic}
    assert cyclic == {("check", "pause"), ("pause", "check"), ("a", "b"), ("b", "a")}
    assert nodes["check"].severity == "error" and "WF202" in nodes["check"].lines[-1]
    assert [e.code for e in drawing.legend] == ["WF202", "WF203", "WF304", "WF402"]
    assert drawing.notes_severity == "error"  # WF203 belongs to no block: the title says so


def test_unreachable_block_in_v2_is_marked_and_has_its_error():
    drawing = _picture_of(ROOT / "fixtures" / "invalid" / "v2_two_terminal_blocks.json")
    node = next(n for n in drawing.nodes.values() if n.lines[0] == "post_to_ops_channel")
    assert node.unreachable and node.severity == "error" and "WF303" in node.lines[-1]


def _picture_of(path: Path):
    (picture,) = pictures([str(path)])
    return picture.drawing


def test_parameters_link_to_the_blocks_that_read_them():
    drawing = _picture_of(ROOT / "fixtures" / "graph" / "v1_list_order.yaml")
    assert not any(n.kind == "param" for n in drawing.nodes.values())
    (picture,) = pictures([str(ROOT / "fixtures" / "graph" / "v1_list_order.yaml")], parameters=True)
    edges = _edges(picture.drawing)
    assert ("portal_url", "open_portal", "reads", None) in edges  # a template
    assert ("months", "each_month", "reads", None) in edges  # loop_over_parameter_key


def test_parameter_keys_are_reads():
    text = json.dumps({"title": "t", "workflow_definition": {"parameters": [
        {"parameter_type": "workflow", "key": "who", "workflow_parameter_type": "string"}],
        "blocks": [{"block_type": "task", "label": "t1", "url": "https://example.com", "navigation_goal": "go",
                    "parameter_keys": ["who"]}]}})
    inspection = inspect_bytes(text.encode(), "p.json")
    drawing = build.drawing(inspection.workflows[0], inspection.diagnostics, parameters=True)
    assert ("who", "t1", "reads", None) in _edges(drawing)


def test_hint_is_goal_prompt_or_url_truncated():
    from wflint.workflow.view import Block

    assert build.hint(Block((), {"url": "https://e.com", "navigation_goal": "Go"}, "task")) == "Go"
    assert build.hint(Block((), {"url": "https://e.com"}, "goto_url")) == "https://e.com"
    drawing = _picture("v2_branches_merge.yaml")
    assert all(len(line) <= build.HINT_LIMIT for n in drawing.nodes.values() for line in n.lines[2:3])


# --------------------------------------------------------------------------- escaping


KEYWORDS = ["end", "subgraph", "style:", "classDef:", "title:", "---", "%%{init: {}}%%", "graph", "digraph", "node", "edge", "strict", "style", "class", "classDef",
            "click", "linkStyle", "default", "o", "x", "flowchart", "direction", "TB", "-->", "---", "==>",
            "<br/>", "&amp;", "#quot;", "#35;", "\\n", "\\l", "\\N", "\\", '"', "'", "`x`", "%%", ";", "|", ":::"]
TEXT = st.one_of(
    st.sampled_from(KEYWORDS),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=24),
    st.lists(st.sampled_from(KEYWORDS + ["[", "]", "(", ")", "{", "}", "<", ">", "é", "漢", "🙂", " "]),
             min_size=1, max_size=8).map("".join),
).filter(lambda s: plain(s).strip() == plain(s) and plain(s).strip())


def _drawing(title: str, label: str, hint: str, branch: str, group: str) -> Drawing:
    out = Drawing(title)
    out.add(Node("b0", BLOCK, [label, "task", hint]), out.members)
    g = Group("c0", group)
    out.members.append(g)
    out.add(Node("b1", BLOCK, [hint, label], severity="error", unreachable=True), g.members)
    out.edges.append(Edge("b0", "b1", BRANCH, branch, default=True, cyclic=True))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(title=TEXT, label=TEXT, hint=TEXT, branch=TEXT, group=TEXT)
def test_mermaid_shows_exactly_the_texts(mermaid_parser, title, label, hint, branch, group):
    text = mermaid.render(_drawing(title, label, hint, branch, group))
    result = mermaid_ok(mermaid_parser, text)
    front = yaml.safe_load(text.split("---\n")[1])  # the front matter, as YAML reads it
    assert front == {"title": plain(title).replace("<", "‹").replace(">", "›")}
    assert set(result["vertices"]) - {"c0"} == {"b0", "b1"}  # `style c0` names the subgraph
    assert result["vertices"]["b0"] == "<br>".join(plain(x) for x in (label, "task", hint))
    assert result["vertices"]["b1"] == "<br>".join(plain(x) for x in (hint, label))
    assert result["edges"] == [{"start": "b0", "end": "b1", "text": plain(branch)}]
    assert [s["title"] for s in result["subgraphs"]] == [plain(group)]
    assert [s["nodes"] for s in result["subgraphs"]] == [["b1"]]


@settings(max_examples=60, deadline=None)
@given(title=TEXT, label=TEXT, hint=TEXT, branch=TEXT, group=TEXT)
def test_dot_shows_exactly_the_texts(title, label, hint, branch, group):
    graph = dot_read(dot.render(_drawing(title, label, hint, branch, group)))
    assert dot_texts(graph) == [plain(title)]
    objects = {o["name"]: o for o in graph["objects"]}
    assert set(objects) == {"b0", "b1", "cluster_c0"}
    assert dot_texts(objects["b0"]) == [plain(x) for x in (label, "task", hint)]
    assert dot_texts(objects["b1"]) == [plain(x) for x in (hint, label)]
    assert dot_texts(objects["cluster_c0"]) == [plain(group)]
    (edge,) = graph["edges"]
    assert dot_texts(edge) == [plain(branch)]


# --------------------------------------------------------------------------- routing.route


def test_route_v1_is_list_order_without_the_finally_block():
    from wflint.workflow.routing import ScopeBlock, route

    r = route([ScopeBlock("a", "c"), ScopeBlock("f"), ScopeBlock("b"), ScopeBlock("c")], routed=False, finally_label="f")
    assert [(e.source, e.target, e.via) for e in r.edges] == [("a", "b", ("sequence",)), ("b", "c", ("sequence",))]
    assert r.start == "a" and not r.unreachable and not r.cyclic and not r.dangling


def test_route_v2_start_unreachable_cycle_dangling():
    from wflint.workflow.routing import ScopeBlock, route

    blocks = [ScopeBlock("a", "b"), ScopeBlock("b", "c"), ScopeBlock("c", "b"), ScopeBlock("d", "nowhere"), ScopeBlock("f")]
    r = route(blocks, routed=True, finally_label="f")
    assert r.start == "a"
    assert r.unreachable == {"d"}
    assert {(e.source, e.target) for e in r.cyclic} == {("b", "c"), ("c", "b")}
    assert [(e.source, e.target) for e in r.dangling] == [("d", "nowhere")]


def test_route_v2_without_a_start_and_merges():
    from wflint.workflow.routing import ScopeBlock, route

    assert route([ScopeBlock("a", "b"), ScopeBlock("b", "a")], routed=True).start is None
    blocks = [ScopeBlock("c", "m", True, ("x", None)), ScopeBlock("x"), ScopeBlock("m")]
    r = route(blocks, routed=True)
    assert [(e.source, e.target, e.via) for e in r.edges] == [("c", "x", ("branch", 0)), ("x", "m", ("merge", "c"))]
    assert r.start == "c" and not r.unreachable


def test_route_agrees_with_the_service_check_on_every_realistic_fixture():
    """Where the rules (stage F) find a cycle, the route has cyclic edges; where they find
    blocks nobody reaches, the route marks them; and a clean scope has neither."""
    from wflint.api import inspect_file
    from wflint.workflow import routing

    for path in REALISTIC + GOLDEN:
        for wf in inspect_file(path).workflows:
            if wf.version < 2 or not wf.blocks:
                continue
            findings = {pos: f.kind for pos, f in routing.workflow_findings(wf)}
            for pos, (loop, members) in enumerate(routing.scopes(wf)):
                if any(b.label is None for b in members):
                    continue
                r = routing.route([routing.scope_block(b) for b in members], True, wf.finally_label if loop is None else None)
                kind = findings.get(pos)
                if kind == routing.CYCLE:
                    assert r.cyclic, (path, pos)
                if kind == routing.DISCONNECTED:
                    assert r.unreachable, (path, pos)
                if kind is None:
                    assert not (r.cyclic or r.unreachable or r.dangling), (path, pos)


def test_inspect_file_skips_non_workflows_met_in_a_directory(tmp_path):
    from wflint.api import inspect_file

    other = tmp_path / "ci.yaml"
    other.write_text("on: push\njobs: {}\n", encoding="utf-8")
    assert inspect_file(other, explicit=False) is None
    found = inspect_file(GOLDEN[0], explicit=False)
    assert found is not None and len(found.workflows) == 1
