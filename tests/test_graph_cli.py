"""``wflint graph`` on the command line: formats, outputs, exit codes, clear errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.cli import main

ROOT = Path(__file__).resolve().parent.parent
GRAPH = ROOT / "fixtures" / "graph"
FINALLY = GRAPH / "finally_block.yaml"
BROKEN = GRAPH / "broken_routing.yaml"


def run(*args: str):
    return CliRunner().invoke(main, ["graph", *args], catch_exceptions=False)


def test_mermaid_to_standard_output_is_the_golden_picture():
    r = run(str(FINALLY))
    assert r.exit_code == 0, r.output
    assert r.stdout == FINALLY.with_suffix(".mmd").read_text(encoding="utf-8")


def test_dot_to_a_file(tmp_path):
    out = tmp_path / "sub" / "flow.dot"
    r = run(str(BROKEN), "--format", "dot", "--out", str(out))
    assert r.exit_code == 0, r.output  # a picture of problems is still a picture
    assert out.read_text(encoding="utf-8") == BROKEN.with_suffix(".dot").read_text(encoding="utf-8")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_through_graphviz():
    r = run(str(BROKEN), "--format", "svg")
    assert r.exit_code == 0, r.output
    assert "<svg" in r.stdout and "missing: finish_up" in r.stdout


def test_svg_without_graphviz_says_how_to_get_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot anywhere
    r = CliRunner().invoke(main, ["graph", str(BROKEN), "--format", "svg"])
    assert r.exit_code == 2
    assert "Graphviz" in r.stderr and "apt-get install graphviz" in r.stderr and "--format dot" in r.stderr
    assert "Traceback" not in r.output and isinstance(r.exception, SystemExit)


def test_several_workflows_need_a_directory_or_markdown(tmp_path):
    r = run(str(GRAPH), "--format", "dot")
    assert r.exit_code == 2
    assert "--out DIRECTORY" in r.stderr and "--format markdown" in r.stderr
    r = run(str(GRAPH), "--format", "mermaid", "--out", str(tmp_path) + "/")
    assert r.exit_code == 0, r.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(p.with_suffix(".mmd").name for p in GRAPH.iterdir() if p.suffix in (".yaml", ".json"))
    assert (tmp_path / "nested_loops.mmd").read_text(encoding="utf-8") == (GRAPH / "nested_loops.mmd").read_text(encoding="utf-8")


def test_markdown_gathers_every_workflow_with_its_problems():
    r = run(str(FINALLY), str(BROKEN), "--format", "markdown")
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert out.count("```mermaid\n") == 2 and out.count("\n```\n") == 2
    assert f"### `{FINALLY}`: Book a meeting room (v2)" in out
    assert f"`{BROKEN}:6:24` **WF203** finally\\_block\\_label 'clean\\_up' names no block" in out


def test_a_file_that_does_not_parse_is_reported_not_drawn(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: [unclosed\nworkflow_definition: {}\n", encoding="utf-8")
    r = run(str(bad))
    assert r.exit_code == 1
    assert f"{bad}: cannot draw: {bad}:" in r.stderr and "WF001" in r.stderr
    r = run(str(bad), "--format", "markdown")
    assert r.exit_code == 1 and "Cannot draw this file" in r.stdout


def test_missing_path_and_bad_format_are_usage_errors(tmp_path):
    r = run(str(tmp_path / "nope.yaml"))
    assert r.exit_code == 2 and "no such file or directory" in r.stderr
    r = CliRunner().invoke(main, ["graph", str(FINALLY), "--format", "png"])
    assert r.exit_code == 2


def test_a_directory_without_workflows_is_a_usage_error(tmp_path):
    (tmp_path / "ci.yaml").write_text("on: push\n", encoding="utf-8")
    r = run(str(tmp_path))
    assert r.exit_code == 2 and "no workflow definition found" in r.stderr
