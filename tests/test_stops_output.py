"""Deterministic, valid output and the smaller stops of issue 29: the same simulation gives the
same bytes, NaN/Infinity are shown as the service shows them (null) and never break a read of
the mock, ``-k`` refuses what does not parse, and a stub table a run cannot use is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.cli import main
from wflint.engine import json_values
from wflint.simulate.suite import KeywordError, compile_keyword
from wflint.server.testing import make_client

ROOT = Path(__file__).resolve().parent.parent
A = {"x-api-key": "key-a"}
NAN_CODE = "x = float('nan')\ny = float('inf')\nw = [-float('inf'), 1.5]\n"


def _simulate(*args: str) -> str:
    result = CliRunner().invoke(main, ["simulate", *args])
    assert result.exit_code in (0, 1), result.output
    return result.output


def test_the_same_simulation_twice_gives_the_same_bytes():
    path = str(ROOT / "fixtures" / "simulate" / "branches.yaml")
    first, second = _simulate(path, "--format", "json"), _simulate(path, "--format", "json")
    assert '"branch_id"' in first  # the ids that used to be fresh random UUIDs
    assert first == second


def test_nan_and_infinity_print_as_null_in_valid_json(tmp_path):
    workflow = tmp_path / "nan.yaml"
    workflow.write_text("title: nan\nworkflow_definition:\n  parameters: []\n  blocks:\n"
                        "    - block_type: code\n      label: c\n      code: |\n"
                        + "".join(f"        {line}\n" for line in NAN_CODE.splitlines())
                        + "    - block_type: terminate\n      label: t\n      reason: 'x={{ c_output.x }}'\n")
    text = _simulate(str(workflow), "--format", "json")
    traces = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))
    assert traces[0]["outputs"]["c_output"] == {"x": None, "y": None, "w": [None, 1.5]}
    # while the run goes on the engine keeps the float: a template renders it as Python does
    assert traces[0]["outputs"]["t_output"] == {"reason": "x=nan"}


def test_json_values_reads_what_older_stores_wrote():
    assert json_values.loads('{"a": NaN, "b": [Infinity, -Infinity, 1]}') == {"a": None, "b": [None, None, 1]}
    assert json_values.dumps({"a": float("nan"), "b": (1.0, float("-inf"))}) == '{"a": null, "b": [1.0, null]}'


def test_a_run_with_nan_reads_as_the_service_shows_it():
    client = make_client()
    body = {"title": "nan", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "c", "code": NAN_CODE}]}}
    wpid = client.post("/v1/agents", json={"json_definition": body}, headers=A).json()["workflow_permanent_id"]
    run_id = client.post("/v1/run/agents", json={"agent_id": wpid}, headers=A).json()["run_id"]
    assert client.app.state.wflint.run_worker.wait(run_id, 60)
    run = client.get(f"/v1/runs/{run_id}", headers=A)
    assert run.status_code == 200 and run.json()["output"]["c_output"] == {"x": None, "y": None, "w": [None, 1.5]}
    timeline = client.get(f"/v1/runs/{run_id}/timeline", headers=A)
    assert timeline.status_code == 200
    # a record an older mock stored with NaN tokens still reads
    store = client.app.state.wflint.runs.store
    with store._transaction() as db:
        db.execute("UPDATE runs SET record = replace(record, '\"failure_reason\": null', "
                   "'\"failure_reason\": null, \"nan_field\": NaN') WHERE run_id = ?", (run_id,))
    assert client.get(f"/v1/runs/{run_id}", headers=A).status_code == 200
    assert client.get(f"/api/v1/workflows/runs/{run_id}", headers=A).status_code == 200


# ---------------------------------------------------------------- -k


@pytest.mark.parametrize("expression, says", [
    ("not", "expected a word or '(', got the end of the expression"),
    ("(" * 50000, "parentheses nest deeper than 100 levels"),
    ("(small", "expected ')'"),
    ("small big", "expected 'and', 'or' or the end, got 'big'"),
    ("small and", "expected a word or '('"),
    (")", "expected a word or '(', got ')'"),
])
def test_a_k_expression_that_does_not_parse_is_refused(expression, says):
    with pytest.raises(KeywordError) as refused:
        compile_keyword(expression)
    assert says in str(refused.value)


@pytest.mark.parametrize("expression", ["not", "(" * 50000])
def test_wflint_test_exits_2_on_a_bad_k(tmp_path, expression):
    result = CliRunner().invoke(main, ["test", str(tmp_path), "-k", expression])
    assert result.exit_code == 2, result.output
    assert "wflint: -k" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("expression, name, expected", [
    ("not not small", "f::small", True), ("not (a or b)", "f::c", True), ("not (a or b)", "f::a", False),
    ("a or b and c", "x::a", True), ("(a or b) and c", "x::a", False), ("((((a))))", "x::A", True),
])
def test_k_keeps_pytest_s_meaning(expression, name, expected):
    assert compile_keyword(expression)(name) is expected


# ---------------------------------------------------------------- stub tables


@pytest.mark.parametrize("table, says", [
    ({"tasks": {"n": "done"}}, "tasks.n: a task's outcome must be an object"),
    ({"tasks": {"n": [{"status": "completed"}, 2]}}, "tasks.n[1]: a task's outcome must be an object"),
    ({"blocks": {"c": {"status": "banana"}}}, "blocks.c: status must be one of completed, failed"),
    ({"tasks": {"n": {"status": "banana"}}}, "tasks.n: status must be one of"),
    ({"blocks": {"c": {"fail": {"x": 1}}}}, "blocks.c: fail must be a string"),
    ({"llm": {"p": {"raise": 5}}}, "llm.p: 'raise' must be a message"),
    ({"prompt_branches": {"cond": "yes"}}, "prompt_branches.cond: expected true/false"),
    ({"prompt_branches": {"cond": [["a"]]}}, "prompt_branches.cond: expected true/false"),
])
def test_a_stub_table_a_run_cannot_use_is_refused_with_422(table, says):
    client = make_client()
    body = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "c", "code": "x = 1"}]}}
    wpid = client.post("/v1/agents", json={"json_definition": body}, headers=A).json()["workflow_permanent_id"]
    reply = client.put(f"/_mock/stubs/{wpid}", json=table, headers=A)
    assert reply.status_code == 422 and says in reply.json()["detail"], reply.text
    assert client.get(f"/_mock/stubs/{wpid}", headers=A).status_code == 404  # nothing stored


def test_usable_stub_tables_are_still_taken():
    client = make_client()
    body = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "c", "code": "x = 1"}]}}
    wpid = client.post("/v1/agents", json={"json_definition": body}, headers=A).json()["workflow_permanent_id"]
    table = {"blocks": {"c": [{"output": 1}, {"status": "terminated", "fail": "stop"}], "d": 7},
             "tasks": {"n": [{"status": "failed", "failure_reason": "no"}, {"status": "completed"}]},
             "llm": {"p": "text", "q": {"raise": "down"}}, "prompt_branches": {"x": True, "y": [[True, False], [False]]}}
    assert client.put(f"/_mock/stubs/{wpid}", json=table, headers=A).status_code == 200
