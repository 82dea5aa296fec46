"""What the speed work relies on, held by tests (the figures themselves live in bench/ and
docs/speed.md: timing asserts would flake on a shared machine)."""

from __future__ import annotations

import gc
from pathlib import Path

from wflint import api
from wflint.document.nodes import Node
from wflint.workflow.view import Workflow

ROOT = Path(__file__).resolve().parents[1]
VALID = sorted((ROOT / "fixtures" / "valid").glob("*.yaml"))


def _garbage_after(check) -> list:
    """The objects only the cycle collector could free after ``check()`` runs."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        check()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()


def test_a_check_leaves_no_cycle_holding_the_tree_or_the_view():
    # the tree and the view are freed as soon as the check ends (reference counting), so
    # pausing the collector during a check keeps memory flat
    garbage = _garbage_after(lambda: [api.check_bytes(p.read_bytes(), str(p)) for p in VALID])
    held = [type(o).__name__ for o in garbage if isinstance(o, (Node, Workflow))]
    assert held == []


def test_the_collector_runs_again_after_a_check():
    assert gc.isenabled()
    api.check_bytes(VALID[0].read_bytes(), str(VALID[0]))
    assert gc.isenabled()
    gc.disable()
    try:
        api.check_bytes(VALID[0].read_bytes(), str(VALID[0]))
        assert not gc.isenabled()  # a caller that turned it off keeps it off
    finally:
        gc.enable()


PROBE = """
import contextlib, io, sys
from wflint.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(" ".join(sorted(m for m in sys.modules if m in {WATCHED!r})))
"""
WATCHED = {"pathspec", "traceback", "xml.etree.ElementTree", "wflint.report.formats.junit",
           "wflint.report.formats.full", "wflint.report.formats.json_format"}


def _loaded(tmp_path: Path, *args: str) -> set[str]:
    import subprocess
    import sys

    code = PROBE.replace("{WATCHED!r}", repr(WATCHED))
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, cwd=tmp_path)
    return set(out.stdout.split())


def test_a_one_file_check_imports_only_its_format_and_no_glob_matcher(tmp_path):
    # no configuration with globs, a file named on the command line: nothing to match
    loaded = _loaded(tmp_path, "check", str(VALID[0]))
    assert loaded == {"wflint.report.formats.full"}
    assert _loaded(tmp_path, "check", "--format", "json", str(VALID[0])) == {"wflint.report.formats.json_format"}


def test_globs_and_gitignore_still_match(tmp_path, monkeypatch):
    from wflint.project.config import Config
    from wflint.project.discovery import discover

    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("ignored.yaml\n")
    for name in ("kept.yaml", "ignored.yaml", "drafted.yaml"):
        (tmp_path / name).write_bytes(VALID[0].read_bytes())
    monkeypatch.chdir(tmp_path)  # globs are relative to the working directory without a config file
    found = discover([tmp_path], Config(exclude=["drafted.yaml"], source=None))
    assert sorted(c.path.name for c in found.candidates) == ["kept.yaml"]


def test_positions_are_worked_out_when_read_and_equal_the_source_positions():
    from wflint.document.parse import parse
    from wflint.document.source import SourceFile

    for text, path in (("a: [1, {b: x}]\nc: |\n  text\n", "f.yaml"), ('{"a": [1, {"b": "x"}], "c": null}', "f.json")):
        source = SourceFile(text, path)
        root = parse(source).root
        nodes = list(root.walk())
        assert all(isinstance(n._start, int) and isinstance(n._end, int) for n in nodes)  # none made yet
        for n in nodes:
            assert (n.start, n.end) == (source.pos(n._start.offset), source.pos(n._end.offset))


def test_an_embedded_document_maps_its_offsets_only_when_a_position_is_read():
    from wflint.document.parse import parse, parse_embedded
    from wflint.document.source import SourceFile

    text = 'yaml_definition: "title: t\\nworkflow_definition:\\n  blocks: []\\n"\n'
    outer = SourceFile(text, "body.yaml")
    holder = parse(outer).root.get("yaml_definition")
    inner = parse_embedded(outer, holder)
    assert callable(inner.source._inner_to_outer)  # not made yet
    blocks = inner.root.get("workflow_definition").get("blocks")
    assert (blocks.start.line, blocks.start.col) == (1, 61)  # `[]`, past the escaped line breaks
    assert isinstance(inner.source._inner_to_outer, list)


def _body(title: str) -> dict:
    return {"json_definition": {"title": title, "workflow_definition": {
        "parameters": [], "blocks": [{"block_type": "wait", "label": "pause", "wait_sec": 2}]}}}


def test_the_mock_list_page_is_rendered_once_per_store_state_and_follows_every_write():
    import json

    from starlette.datastructures import QueryParams

    from wflint.server.workflows import queries
    from wflint.server.testing import make_client, make_state

    state = make_state(keys=("k=o_1",))
    client = make_client(state)
    headers = {"x-api-key": "k"}
    ids = [client.post("/v1/workflows", json=_body(f"flow {i}"), headers=headers).json()["workflow_permanent_id"]
           for i in range(3)]
    first = client.get("/v1/workflows?page_size=2", headers=headers)
    expected = json.dumps(queries.list_workflows(state, "o_1", QueryParams("page_size=2")), ensure_ascii=False,
                          allow_nan=False, separators=(",", ":"))
    assert first.content.decode() == expected
    assert client.get("/v1/workflows?page_size=2", headers=headers).content == first.content
    client.post(f"/v1/workflows/{ids[2]}", json=_body("renamed"), headers=headers)
    titles = [w["title"] for w in client.get("/v1/workflows?page_size=2", headers=headers).json()]
    assert titles[0] == "renamed"
    assert client.post(f"/v1/workflows/{ids[2]}/delete", headers=headers).status_code == 200
    assert ids[2] not in [w["workflow_permanent_id"] for w in client.get("/v1/workflows", headers=headers).json()]


def test_a_clean_file_never_builds_its_line_table_and_a_finding_does():
    from wflint.document.source import decode

    clean = next(p for p in VALID if not api.check_bytes(p.read_bytes(), str(p)))
    source, _ = decode(clean.read_bytes(), str(clean))
    assert api.check_source(source) == []
    assert source._starts is None  # no position was read
    broken, _ = decode(b"title: t\nworkflow_definition:\n  parameters: []\n  blocks: [{block_type: nope}]\n", "b.yaml")
    found = api.check_source(broken)
    assert found and broken._starts is not None
    assert {d.line for d in found} == {4}


def test_the_views_remembered_nodes_are_the_nodes_a_fresh_lookup_finds():
    from wflint.workflow.view import Workflow as View

    views: list = []
    for p in VALID:
        api._check_data(p.read_bytes(), str(p), api.Config(), None, False, views)
    asked = 0
    for wf in views:
        paths = [b.path + (f,) for b in wf.all_blocks for f in ("label", "nope", "url")] + [("title",), ("x", 1), ()]
        paths += [b.path + ("label", "deeper", 0) for b in wf.all_blocks] + [b.path[:-1] + (99,) for b in wf.all_blocks]
        for path in paths:
            first = wf.node(path)
            assert wf.node(path) is first is View._find(wf, path, False)
            asked += 1
    assert asked > 50


def test_a_parallel_run_reports_what_a_single_process_reports(tmp_path):
    for i in range(api.PARALLEL_THRESHOLD + 6):  # enough for the worker pool
        p = VALID[i % len(VALID)]
        (tmp_path / f"{i:03d}_{p.name}").write_bytes(p.read_bytes())
    (tmp_path / "999_broken.yaml").write_text("title: t\nworkflow_definition: {parameters: [], blocks: [{label: 1}]}\n")
    one = api.check_paths([tmp_path], jobs=1)
    two = api.check_paths([tmp_path], jobs=2)
    assert one.diagnostics and one.diagnostics == two.diagnostics and one.checked == two.checked
    # the workers check with the run's configuration, not a default one
    codes = {d.code for d in one.diagnostics}
    quiet = api.Config(ignore=sorted(codes))
    assert api.check_paths([tmp_path], quiet, jobs=1).diagnostics == api.check_paths([tmp_path], quiet, jobs=2).diagnostics == []
    assert api._RUN_CONFIG is None  # set in the workers only, never in the calling process


def test_the_server_freezes_what_its_first_check_loaded_and_a_library_caller_keeps_its_collector():
    import subprocess
    import sys

    script = (
        "import gc, sys\n"
        "from wflint.server.workflows import verdict as engine_bridge\n"
        "engine_bridge.settle_after_first_check = sys.argv[1] == 'serve'\n"
        "request = {'title': 't', 'workflow_definition': {'parameters': [], 'blocks': []}}\n"
        "engine_bridge.evaluate(request, 'json')\n"
        "frozen = gc.get_freeze_count()\n"
        "engine_bridge.evaluate(request, 'json')\n"
        "print(frozen, gc.get_freeze_count() == frozen)\n"
    )
    served = subprocess.run([sys.executable, "-c", script, "serve"], capture_output=True, text=True, check=True)
    library = subprocess.run([sys.executable, "-c", script, "library"], capture_output=True, text=True, check=True)
    frozen, once = served.stdout.split()
    assert int(frozen) > 10_000 and once == "True"  # the rules and the model, once
    assert library.stdout.split()[0] == "0"


def test_the_bench_guard_holds_the_bounds_the_changelog_states_and_fails_over_them():
    """bench/guard.py (run by bench/run.py and bench/lsp_startup.py, whose exit status it sets):
    the bounds are the decision of issue 35, and a ratio over one fails the bench."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import guard
    finally:
        sys.path.remove(str(ROOT / "bench"))
    assert {k: b for k, (_, b) in guard.BOUNDS.items()} == {"check": 2.5, "one": 4.0, "editor": 1.25}
    lines, ok = guard.judge({"check": 2.3, "one": 3.4, "editor": 0.25})
    assert ok and len(lines) == 3 and all(line.endswith(": ok") for line in lines)
    lines, ok = guard.judge({"check": 2.51, "one": 3.4})
    assert not ok and lines[0].endswith("OVER THE BOUND") and "2.51x, bound 2.5x" in lines[0]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "2.5x" in changelog and "4x" in changelog and "1.25x" in changelog
