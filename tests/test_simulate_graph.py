"""``wflint graph --coverage``: what no test case exercised is drawn (pink, dashed) and counted."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from wflint.cli import main
from wflint.graph import pictures
from wflint.graph.coverage import mark

SIM = Path(__file__).resolve().parent.parent / "fixtures" / "simulate"


def test_untested_blocks_and_branches_are_marked():
    drawn = pictures([str(SIM / "no_match.yaml")])
    mark(drawn)
    drawing = drawn[0].drawing
    untested = {n.lines[0] for n in drawing.nodes.values() if n.untested}
    assert untested == {"a"}
    branches = [(drawing.nodes[e.source].lines[0], e.branch_index, e.untested) for e in drawing.edges if e.branch_index is not None]
    assert branches == [("c", 0, True), ("c", 1, False)]
    assert "coverage: blocks 2/3, branches 1/2 over 2 cases" in drawing.notes


def test_without_a_test_file_everything_is_untested(tmp_path):
    shutil.copy(SIM / "branches.yaml", tmp_path / "alone.yaml")
    drawn = pictures([str(tmp_path / "alone.yaml")])
    mark(drawn)
    drawing = drawn[0].drawing
    assert all(n.untested for n in drawing.nodes.values() if n.kind == "block")
    assert any("no test cases" in note for note in drawing.notes)


def test_the_cli_draws_coverage_in_every_syntax():
    mermaid = CliRunner().invoke(main, ["graph", "--coverage", str(SIM / "prompts.yaml")]).output
    assert "stroke:#ad1457" in mermaid and "pink dashed: no test case" in mermaid
    dot = CliRunner().invoke(main, ["graph", "--coverage", "--format", "dot", str(SIM / "prompts.yaml")]).output
    assert '"#ad1457"' in dot
    plain = CliRunner().invoke(main, ["graph", str(SIM / "prompts.yaml")]).output
    assert "#ad1457" not in plain
