"""``wflint simulate`` and ``wflint test`` from the command line: formats, exit codes, selection,
coverage, and the junit output read by a real JUnit consumer and its schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xmlschema
from click.testing import CliRunner
from junitparser import JUnitXml

from wflint.cli import main
from wflint.simulate.suite import keyword_matches

ROOT = Path(__file__).resolve().parent.parent
SIM = ROOT / "fixtures" / "simulate"
TEAM = SIM / "team"
DATA = Path(__file__).resolve().parent / "data"


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_every_scenario_fixture_passes_its_test_file():
    result = run("test", str(SIM))
    assert result.exit_code == 0, result.output
    assert "failed" not in result.output.splitlines()[-1]
    assert result.output.count("::") == 0


def test_the_team_layout_of_the_docs_runs(monkeypatch):
    monkeypatch.chdir(TEAM)
    result = run("test")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith("3 passed")


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "flow.yaml").write_text(
        "title: Flow\nworkflow_definition:\n  version: 2\n  parameters:\n"
        "    - {parameter_type: workflow, key: n, workflow_parameter_type: integer, default_value: 1}\n"
        "  blocks:\n"
        "    - block_type: conditional\n      label: c\n      branch_conditions:\n"
        "        - {criteria: {expression: '{{ n > 5 }}'}, next_block_label: big}\n"
        "        - {is_default: true, next_block_label: small}\n"
        "    - {block_type: code, label: big, code: 'x = {{ n }}'}\n"
        "    - {block_type: code, label: small, code: 'y = {{ n }}'}\n")
    (tmp_path / "flow.test.yaml").write_text(
        "cases:\n"
        "  - name: small one\n    expect: {status: completed, path: [c, small]}\n"
        "  - name: wrong on purpose\n    parameters: {n: 9}\n    expect: {path: [c, small], blocks: {big: {output: {x: 8}}}}\n")
    return tmp_path


def test_a_failed_expectation_shows_expected_and_actual_and_exits_1(project):
    result = run("test", str(project))
    assert result.exit_code == 1
    out = result.output
    assert "flow.test.yaml .F" in out
    assert "expected: [\"c\", \"small\"]" in out and "actual:   [\"c\", \"big\"]" in out
    assert "block big output" in out and 'actual:   {"x": 9}' in out
    assert out.splitlines()[-1].startswith("1 failed, 1 passed")


def test_k_selects_cases_by_name(project):
    result = run("test", str(project), "-k", "small")
    assert result.exit_code == 0
    assert "1 passed, 1 deselected" in result.output
    assert run("test", str(project), "-k", "not small").exit_code == 1


@pytest.mark.parametrize("expression,name,expected", [
    ("small", "f::small one", True), ("not small", "f::small one", False),
    ("a and (b or c)", "x::a c", True), ("a and (b or c)", "x::a d", False), ("SMALL", "f::small", True),
])
def test_k_expressions(expression, name, expected):
    assert keyword_matches(expression, name) is expected


def test_coverage_names_the_untested_blocks_and_branches(project):
    result = run("test", str(project), "-k", "small", "--coverage")
    assert "blocks 2/3 (66.7%), branches 1/2 (50%)" in result.output
    assert "untested blocks: big" in result.output
    assert "untested branch: c #0 if -> big" in result.output
    data = json.loads(run("test", str(project), "--coverage", "--format", "json").output)
    cov = next(iter(data["coverage"]["workflows"].values()))
    assert cov["blocks_hit"] == 3 and cov["untested_branches"] == []


def test_junit_is_read_by_a_junit_consumer_and_valid_against_the_schema(project, tmp_path):
    out = tmp_path / "report.xml"
    result = run("test", str(project), "--format", "junit", "-o", str(out))
    assert result.exit_code == 1
    assert result.output.startswith("1 failed, 1 passed")
    xmlschema.XMLSchema(str(DATA / "junit-10.xsd")).validate(str(out))
    xml = JUnitXml.fromfile(str(out))
    cases = [case for suite in xml for case in suite]
    assert [c.name for c in cases] == ["small one", "wrong on purpose"]
    assert cases[0].is_passed and not cases[1].is_passed
    assert "expected" in cases[1].result[0].text


def test_github_format_annotates_the_test_file(project):
    result = run("test", str(project), "--format", "github")
    line = next(x for x in result.output.splitlines() if x.startswith("::error "))
    assert "flow.test.yaml" in line and "title=wflint test%3A wrong on purpose" in line and "%0A" in line


def test_a_malformed_test_file_is_a_usage_error(tmp_path):
    (tmp_path / "w.yaml").write_text("title: x\nworkflow_definition: {parameters: [], blocks: []}\n")
    (tmp_path / "w.test.yaml").write_text("cases:\n  - name: a\n    expect: {statsu: completed}\n")
    result = run("test", str(tmp_path))
    assert result.exit_code == 2
    assert "unknown key 'statsu' (did you mean 'status'?)" in result.output
    assert run("test", str(tmp_path / "nothing-here")).exit_code == 2


def test_no_test_files_is_a_usage_error(tmp_path):
    result = run("test", str(tmp_path))
    assert result.exit_code == 2 and "no test files found" in result.output


def test_simulate_json_is_one_trace_per_case_in_order(tmp_path):
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps([{"name": "one", "parameters": {"which": "a"}}, {"name": "two"}]))
    result = run("simulate", str(SIM / "branches.yaml"), str(cases), "--format", "json")
    assert result.exit_code == 0
    traces = json.loads(result.output)
    assert [t["name"] for t in traces] == ["one", "two"]
    assert [row["label"] for row in traces[0]["trace"]] == ["start", "route", "path_a", "join"]
    assert set(traces[1]) == {"name", "status", "failure_reason", "errors", "outputs", "trace", "llm_prompts"}


def test_simulate_text_is_a_timeline_with_rendered_inputs():
    result = run("simulate", str(SIM / "loops.yaml"))
    assert result.exit_code == 0
    out = result.output
    assert "case defaults: completed" in out
    assert "  each (for_loop): ok" in out
    assert "    [1] inv (code): FAILED (value 0)" in out
    assert "code: r = 10 / 0" in out


def test_simulate_refused_run_and_bad_paths(tmp_path):
    result = run("simulate", str(SIM / "params.yaml"))
    assert result.exit_code == 0 and "refused: HTTP 400" in result.output
    assert run("simulate", str(tmp_path / "missing.yaml")).exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = run("simulate", str(SIM / "loops.yaml"), str(bad))
    assert result.exit_code == 2 and "bad.json:1:2: could not parse JSON" in result.output
    assert run("simulate", str(SIM / "loops.yaml"), "--target-version", "9.9.9").exit_code == 2


def test_simulate_reads_engine_oracle_cases_as_json_lines(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps({"name": n, "workflow": {}, "case": {"parameters": {"which": w}}})
                               for n, w in (("a", "a"), ("b", "b"))) + "\n")
    traces = json.loads(run("simulate", str(SIM / "branches.yaml"), str(cases), "--format", "json").output)
    assert [(t["name"], t["trace"][2]["label"]) for t in traces] == [("a", "path_a"), ("b", "path_b")]


def test_a_workflow_the_service_refuses_runs_no_case(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"title": "x", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "a", "code": "x = 1"}, {"block_type": "code", "label": "a", "code": "y = 1"}]}}))
    traces = json.loads(run("simulate", str(bad), "--format", "json").stdout)
    assert traces[0]["http_status"] == 422 and "trace" not in traces[0]


def test_a_yaml_workflow_runs_as_the_service_stores_it_labels_sanitized(tmp_path):
    flow = tmp_path / "dash.yaml"
    flow.write_text("title: dash\nworkflow_definition:\n  parameters: []\n  blocks:\n"
                    "    - {block_type: code, label: first-step, code: 'x = 1'}\n"
                    "    - {block_type: code, label: use, code: 'y = {{ first_step_output.x }}'}\n")
    trace = json.loads(run("simulate", str(flow), "--format", "json").stdout)[0]
    assert [row["label"] for row in trace["trace"]] == ["first_step", "use"]
    assert trace["outputs"]["use_output"] == {"y": 1}


def test_coverage_lists_workflows_without_tests_and_fail_under_fails_below_the_floor(project):
    (project / "orphan.yaml").write_text(
        "title: Orphan\nworkflow_definition:\n  version: 2\n  parameters: []\n  blocks:\n"
        "    - {block_type: code, label: a, code: 'x = 1'}\n")
    (project / "notes.yaml").write_text("just: notes\n")  # not a workflow: not listed
    result = run("test", str(project), "-k", "small", "--coverage")
    assert "workflows without tests (1):" in result.output and "orphan.yaml (blocks 1, branches 0)" in result.output
    assert "notes.yaml" not in result.output
    # blocks 2 of 4 (orphan's block counts, unhit), branches 1 of 2: 3 of 6
    assert "total: 50% (blocks 2/4 50%, branches 1/2 50%)" in result.output
    below = run("test", str(project), "-k", "small", "--fail-under", "60")
    assert below.exit_code == 1 and "coverage 50% is under --fail-under 60%" in below.output
    assert run("test", str(project), "-k", "small", "--fail-under", "50").exit_code == 0


def test_json_and_junit_carry_the_coverage(project, tmp_path):
    data = json.loads(run("test", str(project), "--format", "json", "--coverage").output)
    flow = next(v for k, v in data["coverage"]["workflows"].items() if k.endswith("flow.yaml"))
    assert flow["blocks_percent"] == 100.0 and flow["branches_percent"] == 100.0
    assert data["coverage"]["total"]["percent"] == 100.0 and data["coverage"]["untested_workflows"] == {}
    out = tmp_path / "report.xml"
    run("test", str(project), "--format", "junit", "--coverage", "-o", str(out))
    xmlschema.XMLSchema(str(DATA / "junit-10.xsd")).validate(str(out))
    suite = next(iter(JUnitXml.fromfile(str(out))))
    props = {p.name: p.value for p in suite.properties()}
    assert props["coverage.blocks"] == "3/3" and props["coverage.total_percent"] == "100.0"


def test_coverage_without_any_test_file_lists_every_workflow_as_untested(tmp_path):
    (tmp_path / "w.yaml").write_text("title: x\nworkflow_definition:\n  parameters: []\n  blocks:\n"
                                     "    - {block_type: code, label: a, code: 'x = 1'}\n")
    result = run("test", str(tmp_path), "--coverage")
    assert result.exit_code == 2 and "no test files found" in result.output
    assert "w.yaml (blocks 1, branches 0)" in result.output and "total: 0%" in result.output
