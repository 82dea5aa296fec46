"""``wflint diff``: changes named by label and field, formatting reported as formatting and
nothing more, consequences (findings, dangling references, test cases) and the command line."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.cli import main
from wflint.diff import diff_files, diff_git, render
from wflint.diff.changes import CHANGED, FORMATTING
from wflint.diff.markdown import GITHUB_LIMIT, size

ROOT = Path(__file__).resolve().parent.parent
DIFF = ROOT / "fixtures" / "diff"
BASE = DIFF / "orders.yaml"


def one(name: str, *, run_cases: bool = True):
    [d] = diff_files(str(BASE), str(DIFF / name), run_cases=run_cases)
    return d


# --------------------------------------------------------------------------- formatting only


@pytest.mark.parametrize("name, kind", [
    ("orders.reflowed.yaml", "reflow"),
    ("orders.json", "format"),
    ("orders.keyorder.yaml", "key order"),
    ("orders.quoted.yaml", "quoting"),
    ("orders.spelled.yaml", "spelling"),
    ("orders.flow.yaml", "flow"),
])
def test_formatting_alone_is_reported_as_formatting_and_nothing_more(name, kind):
    d = one(name)
    assert d.status == FORMATTING
    assert kind in d.formatting
    assert d.structure is not None and d.structure.empty
    assert d.cases == [] and d.introduced == [] and d.fixed == [] and d.dangling == []
    assert "formatting only" in render([d], "text", "1.0.56")


def test_an_identical_file_is_unchanged():
    [d] = diff_files(str(BASE), str(BASE))
    assert d.status == "unchanged" and d.formatting == []


# --------------------------------------------------------------------------- real changes named


def test_a_move_in_a_v2_definition_is_a_move_and_routes_nothing_new():
    d = one("orders.moved.yaml")
    assert d.status == CHANGED
    [b] = d.structure.changed_blocks
    assert (b.label, b.moved, b.fields) == ("eu_path", "from position 4 to 3 of the top level", [])
    assert d.structure.edges_added == [] and d.structure.edges_removed == []
    assert not d.tested_path_changed


def test_a_rename_is_matched_by_content_with_no_edge_or_block_added():
    d = one("orders.renamed.yaml")
    [b] = d.structure.changed_blocks
    assert (b.label, b.renamed_from, b.status, b.fields) == ("europe", "eu_path", "kept", [])
    assert d.structure.edges_added == [] and d.structure.edges_removed == []
    # the case runs the same route under the new name: no path change, but its expectation names eu_path
    [case] = d.changed_cases
    assert not case.path_changed and case.old.passed and not case.new.passed


def test_a_branch_added_names_the_branch_the_block_and_both_edges():
    d = one("orders.branch.yaml")
    s = d.structure
    added = [b for b in s.changed_blocks if b.status == "added"]
    assert [b.label for b in added] == ["apac_path"]
    [choose] = [b for b in s.changed_blocks if b.label == "choose"]
    assert [f.path for f in choose.fields] == ["branch_conditions[1] (added)"]
    assert {(e.source, e.target, e.via) for e in s.edges_added} == {("choose", "apac_path", "branch"),
                                                                     ("apac_path", "summarize", "merge")}
    assert s.edges_removed == []
    assert d.changed_cases == []


def test_a_removed_output_that_fed_parameters_is_left_dangling_and_named():
    d = one("orders.removed_output.yaml")
    s = d.structure
    assert [(b.label, b.status) for b in s.changed_blocks] == [("fetch", "removed")]
    assert [(e.source, e.target) for e in s.edges_removed] == [("fetch", "choose")]
    assert {(x.where, x.field, x.name) for x in d.dangling} == {
        ("summarize", "parameter_keys", "fetch_output"), ("each_order", "loop_over_parameter_key", "fetch_output")}
    assert {x.code for x in d.introduced} == {"WF205", "WF210", "WF213"}
    assert d.tested_path_changed
    assert all(c.new.status.startswith("refused") for c in d.cases)


def test_a_reworded_prompt_is_a_word_diff_and_a_retyped_parameter_is_retyped():
    d = one("orders.prompt.yaml")
    [b] = d.structure.changed_blocks
    [prompt] = b.fields
    assert prompt.path == "prompt"
    text = render([d], "text", "1.0.56")
    assert "[-late,-] {+overdue,+}" in text
    [p] = d.structure.changed_params
    assert p.retyped and (p.old_type, p.new_type) == ("workflow:integer", "workflow:string")
    assert "~~late,~~ **overdue,**" in render([d], "markdown", "1.0.56")


def test_cases_whose_path_changed_are_listed_first():
    d = one("orders.reroute.yaml")
    [case] = d.changed_cases
    assert case.name == "eu by default" and case.path_changed
    assert case.old.path[2] == "eu_path" and case.new.path[2] == "us_path"
    text = render([d], "text", "1.0.56")
    assert text.index("Test cases") < text.index("Blocks")
    md = render([d], "markdown", "1.0.56")
    assert md.index("eu by default") < md.index("**Blocks**")
    assert "1 test case changes path or status" in md


def test_a_v1_move_changes_the_order_edges(tmp_path):
    old = tmp_path / "old.yaml"
    new = tmp_path / "new.yaml"
    blocks = [{"block_type": "code", "label": x, "code": f"{x} = 1"} for x in ("a", "b", "c")]
    old.write_text(json.dumps({"title": "t", "workflow_definition": {"parameters": [], "blocks": blocks}}))
    new.write_text(json.dumps({"title": "t", "workflow_definition": {"parameters": [], "blocks": [blocks[0], blocks[2], blocks[1]]}}))
    [d] = diff_files(str(old), str(new))
    assert [b.label for b in d.structure.changed_blocks if b.moved] == ["c"]
    assert {(e.source, e.target) for e in d.structure.edges_added} == {("a", "c"), ("c", "b")}
    assert {(e.source, e.target) for e in d.structure.edges_removed} == {("a", "b"), ("b", "c")}


def test_a_block_moved_into_a_loop_says_where(tmp_path):
    old = tmp_path / "old.yaml"
    new = tmp_path / "new.yaml"
    loop = {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "items",
            "loop_blocks": [{"block_type": "code", "label": "inner", "code": "x = 1"}]}
    params = [{"parameter_type": "workflow", "key": "items", "workflow_parameter_type": "json", "default_value": [1]}]
    extra = {"block_type": "code", "label": "tail", "code": "y = 2"}
    old.write_text(json.dumps({"title": "t", "workflow_definition": {"parameters": params, "blocks": [loop, extra]}}))
    moved = {**loop, "loop_blocks": loop["loop_blocks"] + [extra]}
    new.write_text(json.dumps({"title": "t", "workflow_definition": {"parameters": params, "blocks": [moved]}}))
    [d] = diff_files(str(old), str(new))
    [b] = [b for b in d.structure.changed_blocks if b.label == "tail"]
    assert b.moved == "from the top level to the body of loop each"


# --------------------------------------------------------------------------- markdown limits


def _big(n: int, word: str) -> dict:
    blocks = [{"block_type": "text_prompt", "label": f"step_{i:02d}",
               "prompt": " ".join(f"{word} {i} {j}" for j in range(400))} for i in range(n)]
    return {"title": "sixty", "workflow_definition": {"parameters": [], "blocks": blocks}}


def test_a_60_block_workflow_fits_a_github_comment(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_big(60, "alpha")))
    new.write_text(json.dumps(_big(60, "beta")))
    diffs = diff_files(str(old), str(new))
    assert len(diffs[0].structure.changed_blocks) == 60
    md = render(diffs, "markdown", "1.0.56")
    assert size(md) <= GITHUB_LIMIT
    assert "more lines of this diff not shown" in md
    assert md.count("<details") == md.count("</details>")
    small = render(diffs, "markdown", "1.0.56", limit=5000)
    assert size(small) <= 5000 and "not shown" in small
    # the text format is never cut
    assert render(diffs, "text", "1.0.56").count("~ step_") == 60


def test_json_holds_every_fact():
    d = one("orders.removed_output.yaml")
    doc = json.loads(render([d], "json", "1.0.56"))
    [f] = doc["files"]
    assert f["status"] == "changed" and f["tested_path_changed"] is True
    assert f["blocks"][0]["status"] == "removed"
    assert {x["name"] for x in f["dangling"]} == {"fetch_output"}
    assert {x["code"] for x in f["findings_introduced"]} == {"WF205", "WF210", "WF213"}


# --------------------------------------------------------------------------- the command line


def run(*args: str):
    return CliRunner().invoke(main, ["diff", *args], catch_exceptions=False)


def test_exit_code_says_when_a_tested_path_changes():
    assert run(str(BASE), str(DIFF / "orders.reroute.yaml"), "--exit-code").exit_code == 1
    assert run(str(BASE), str(DIFF / "orders.reroute.yaml")).exit_code == 0
    assert run(str(BASE), str(DIFF / "orders.prompt.yaml"), "--exit-code").exit_code == 0


@pytest.mark.parametrize("args, words", [
    ((str(BASE),), "give two files"),
    ((str(BASE), str(DIFF / "missing.yaml")), "no such file"),
    ((str(BASE), str(DIFF)), "is a directory"),
])
def test_usage_errors_exit_2_with_a_clear_message(args, words):
    r = run(*args)
    assert r.exit_code == 2 and words in r.stderr and "Traceback" not in r.output


def test_a_file_that_is_not_a_workflow_is_not_compared(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("title: [unclosed\n")
    r = run(str(BASE), str(bad))
    assert r.exit_code == 0 and "not comparable" in r.stdout and "WF001" in r.stdout


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid", *args], cwd=repo, check=True,
                   capture_output=True)


def test_git_revisions_compare_the_changed_workflows_only(tmp_path):
    repo = tmp_path / "repo"
    (repo / "flows").mkdir(parents=True)
    (repo / "flows" / "orders.yaml").write_text(BASE.read_text())
    (repo / "flows" / "orders.test.yaml").write_text((DIFF / "orders.test.yaml").read_text())
    (repo / "ci.yml").write_text("on: push\njobs: {}\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    (repo / "flows" / "orders.yaml").write_text((DIFF / "orders.reroute.yaml").read_text())
    (repo / "ci.yml").write_text("on: [push]\njobs: {}\n")
    _git(repo, "commit", "-qam", "two")
    diffs = diff_git("HEAD~1..HEAD", [], cwd=str(repo))
    assert [d.path for d in diffs] == ["flows/orders.yaml"]
    assert diffs[0].tested_path_changed and diffs[0].test_file == "flows/orders.test.yaml"
    # against the working tree, limited to a path
    (repo / "flows" / "orders.yaml").write_text((DIFF / "orders.keyorder.yaml").read_text())
    [d] = diff_git("HEAD~1", [str(repo / "flows")], cwd=str(repo))
    assert d.status == FORMATTING
    assert diff_git("HEAD", ["ci.yml"], cwd=str(repo)) == []


def test_git_errors_are_usage_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("--git", "HEAD~1")
    assert r.exit_code == 2 and "git" in r.stderr and "Traceback" not in r.output


# --------------------------------------------------------------------------- golden reports


import diff_golden  # noqa: E402 - the golden files' maker, beside this file


@pytest.mark.parametrize("fmt", sorted(diff_golden.FORMATS))
@pytest.mark.parametrize("change", diff_golden.CHANGES)
def test_golden_report(change, fmt):
    expected = diff_golden.expected_path(change, fmt)
    assert expected.exists(), f"missing {expected.name}: run python tests/diff_golden.py --update and read it"
    assert diff_golden.render(change, fmt) == expected.read_text(encoding="utf-8")


def test_markdown_escapes_what_a_label_could_start(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    block = {"block_type": "code", "label": "a", "code": "x = 1"}
    old.write_text(json.dumps({"title": "t", "workflow_definition": {"parameters": [], "blocks": [block]}}))
    evil = {**block, "code": "x = '| @team <img src=x> ``` **'"}
    new.write_text(json.dumps({"title": "t", "workflow_definition": {"parameters": [], "blocks": [evil]}}))
    md = render(diff_files(str(old), str(new)), "markdown", "1.0.56")
    # a code span fenced longer than the text's own run of backticks: no mention, no HTML
    assert "`" * 4 + '"x = \'| @team <img src=x> ``` **\'"' + "`" * 4 in md
    assert md.count("@team") == 1
    assert md.count("<details") == md.count("</details>") == 1


def test_three_dots_compare_from_the_merge_base(tmp_path):
    repo = tmp_path
    (repo / "orders.yaml").write_text(BASE.read_text())
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    _git(repo, "checkout", "-qb", "feature")
    (repo / "orders.yaml").write_text((DIFF / "orders.branch.yaml").read_text())
    _git(repo, "commit", "-qam", "branch")
    _git(repo, "checkout", "-q", "main")
    (repo / "orders.yaml").write_text((DIFF / "orders.prompt.yaml").read_text())
    _git(repo, "commit", "-qam", "prompt on main")
    [d] = diff_git("main...feature", [], cwd=str(repo))
    assert [b.label for b in d.structure.changed_blocks] == ["choose", "apac_path"]  # not the prompt of main


def test_finally_block_and_error_mappings_are_named(tmp_path):
    base = (ROOT / "fixtures" / "simulate" / "finally_fails.yaml").read_text()
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    old.write_text(base)
    changed = base.replace("  finally_block_label: fin\n", "  finally_block_label: main\n  error_code_mapping: {BROKE: the run broke}\n")
    changed = changed.replace("      label: fin\n", "      label: fin\n      error_code_mapping: {CLEANUP: cleanup failed}\n")
    new.write_text(changed)
    [d] = diff_files(str(old), str(new), run_cases=False)
    settings = {(f.path, str(f.old), str(f.new)) for f in d.structure.settings}
    assert ("workflow_definition.finally_block_label", "fin", "main") in settings
    assert ("workflow_definition.error_code_mapping", "(absent)", "{'BROKE': 'the run broke'}") in settings
    [fin] = [b for b in d.structure.changed_blocks if b.label == "fin"]
    assert [(f.path, f.new) for f in fin.fields] == [("error_code_mapping", {"CLEANUP": "cleanup failed"})]
    # a route of one block either way (the finally block is taken out of it): no edge to add or remove
    assert d.structure.edges_added == [] and d.structure.edges_removed == []


def test_a_parameter_whose_key_changed_is_a_rename_and_its_readers_are_named(tmp_path):
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    text = BASE.read_text()
    old.write_text(text)
    new.write_text(text.replace("key: region", "key: market"))
    [d] = diff_files(str(old), str(new), run_cases=False)
    [p] = d.structure.changed_params
    assert (p.key, p.renamed_from, p.status, p.fields) == ("market", "region", "kept", [])
    [x] = d.dangling
    assert (x.where, x.name, x.why) == ("choose", "region", "parameter region was renamed to market")


def test_a_renamed_block_keeps_the_findings_that_name_it(tmp_path):
    from wflint.api import check_file

    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    # a warning whose message names the block: an unknown field on it
    text = BASE.read_text().replace("      label: us_path\n", "      label: us_path\n      colour: red\n")
    old.write_text(text)
    new.write_text(text.replace("us_path", "america"))
    assert any("'us_path'" in x.message for x in check_file(old))
    [d] = diff_files(str(old), str(new), run_cases=False)
    assert [b.renamed_from for b in d.structure.changed_blocks] == ["us_path"]
    assert d.introduced == [] and d.fixed == []


def test_a_path_outside_the_repository_is_a_usage_error(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "orders.yaml").write_text(BASE.read_text())
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "one")
    from wflint.diff import VersionError

    with pytest.raises(VersionError, match="outside the git repository"):
        diff_git("HEAD", [str(tmp_path)], cwd=str(repo))
    assert diff_git("HEAD", ["orders.yaml"], cwd=str(repo)) == []  # a relative path, from cwd


def test_a_literal_block_rewrapped_is_a_change_of_spacing_only(tmp_path):
    old, new = tmp_path / "old.yaml", tmp_path / "new.yaml"
    text = BASE.read_text().replace("      prompt: >\n", "      prompt: |\n")
    old.write_text(text)
    new.write_text(text.replace("late,\n        in two", "late, in two"))
    [d] = diff_files(str(old), str(new), run_cases=False)
    [b] = d.structure.changed_blocks
    assert [f.path for f in b.fields] == ["prompt"]  # a literal block keeps its line breaks: another string
    assert "prompt: the same words, with other spacing or line breaks" in render([d], "text", "1.0.56")
    assert "the same words" in render([d], "markdown", "1.0.56")


def test_the_issues_example_a_move_a_reflow_and_a_branch_in_one_change():
    d = one("orders.combined.yaml")
    s = d.structure
    assert {(b.label, b.status, bool(b.moved), tuple(f.path for f in b.fields)) for b in s.changed_blocks} == {
        ("choose", "kept", False, ("branch_conditions[1] (added)",)),
        ("eu_path", "kept", True, ()),
        ("apac_path", "added", False, ()),
    }  # the reflowed prompt is no change of summarize
    assert d.formatting == ["reflow"]
    assert {(e.source, e.target) for e in s.edges_added} == {("choose", "apac_path"), ("apac_path", "summarize")}
    assert s.edges_removed == [] and d.changed_cases == []
