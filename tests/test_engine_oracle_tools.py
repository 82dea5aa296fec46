"""The engine oracle's own parts that need no engine (default suite, fast): scenario files,
expectation checks, trace normalising, the loopback server and the missing-venv error."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "engine"))

import loopback  # noqa: E402
import oracle  # noqa: E402
import trace_normal  # noqa: E402

KNOWN_EXPECT_KEYS = {"status", "failure_reason", "failure_reason_contains", "errors", "http_status", "body", "path",
                     "blocks", "failure_reasons", "block_outputs", "outputs", "llm_calls", "webhook_failure_reason"}


def test_every_scenario_case_expects_something_the_checker_knows():
    scenarios = oracle.load_scenarios()
    assert len(scenarios) >= 12
    for name, sc in scenarios.items():
        assert sc.get("description"), name
        for case in sc["cases"]:
            expect = case.get("expect") or {}
            assert expect, f"{name}/{case['name']} expects nothing"
            assert set(expect) <= KNOWN_EXPECT_KEYS, (name, case["name"], set(expect) - KNOWN_EXPECT_KEYS)
    names = [c["name"] for c in oracle.scenario_cases(scenarios)]
    assert len(names) == len(set(names))


def test_a_case_can_replace_the_scenarios_workflow():
    sc = {"s": {"workflow": {"title": "base"}, "cases": [{"name": "a"}, {"name": "b", "workflow": {"title": "own"}}]}}
    assert [c["workflow"]["title"] for c in oracle.scenario_cases(sc)] == ["base", "own"]


def test_a_scenario_without_cases_is_refused(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("workflow: {title: x}\n")
    with pytest.raises(ValueError, match="needs 'workflow' and 'cases'"):
        oracle.load_scenarios([bad])


TRACE = {"name": "x", "status": "failed", "failure_reason": "code block failed. failure reason: boom",
         "errors": [], "outputs": {"a_output": {"v": 1}},
         "trace": [{"label": "a", "status": "completed", "output": {"v": 1}, "failure_reason": None},
                   {"label": "b", "status": "failed", "output": None, "failure_reason": "boom"}],
         "llm_prompts": [{"label": "b", "prompt": "p"}]}


def test_expectations_that_hold_report_nothing():
    expect = {"status": "failed", "failure_reason_contains": "boom", "path": ["a", "b"], "blocks": {"b": "failed"},
              "failure_reasons": {"b": "boom"}, "block_outputs": {"a": {"v": 1}}, "outputs": {"a_output": {"v": 1}},
              "llm_calls": {"b": 1, "a": 0}}
    assert oracle.check_expectations(TRACE, expect) == []


@pytest.mark.parametrize("expect", [
    {"status": "completed"}, {"failure_reason_contains": "nope"}, {"path": ["a"]}, {"blocks": {"c": "completed"}},
    {"failure_reasons": {"b": "other"}}, {"block_outputs": {"a": None}}, {"outputs": {"a_output": {}}},
    {"llm_calls": {"b": 2}}, {"http_status": 400},
])
def test_each_expectation_that_fails_is_reported(expect):
    problems = oracle.check_expectations(TRACE, expect)
    assert len(problems) == 1, problems


def test_normalise_drops_engine_ids_and_times_but_keeps_user_keys():
    raw = {"task_id": "tsk_601087376391188598", "status": "completed", "record_id": 7,
           "failure_reason": "Task tsk_601087376391188598 failed", "created_at": "2026-11-25T19:00:00",
           "response_headers": {"Date": "Wed", "Content-Type": "application/json"},
           "loop": [[{"loop_value": 1, "output_parameter": {"key": "a_output", "output_parameter_id": "op_1"},
                      "output_value": {"x": 1}}]]}
    assert trace_normal.normalise(raw) == {
        "status": "completed", "record_id": 7, "failure_reason": "Task <id> failed",
        "response_headers": {"Content-Type": "application/json"},
        "loop": [[{"loop_value": 1, "output_parameter": "a_output", "output_value": {"x": 1}}]]}
    masked = trace_normal.mask(raw)
    assert list(masked) == list(raw) and masked["task_id"] == "<volatile>"


def test_loopback_echoes_and_answers_a_chosen_status():
    base = loopback.start()
    req = urllib.request.Request(base + "/collect", data=json.dumps({"a": 1}).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert json.load(resp) == {"method": "POST", "path": "/collect", "json": {"a": 1}}
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(base + "/status/500", timeout=10)
    assert err.value.code == 500 and json.load(err.value) == {"error": "boom"}
    assert loopback.substitute({"u": ["$ECHO_URL/x"]}, base) == {"u": [base + "/x"]}


def test_run_real_without_the_venv_says_what_is_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("WFLINT_ORACLE_CACHE", str(tmp_path))
    with pytest.raises(oracle.EngineUnavailable, match="skyvern\\[local\\]==1.0.56"):
        oracle.run_real([{"name": "x", "workflow": {}, "case": {}}])
    assert oracle.run_real([]) == []
