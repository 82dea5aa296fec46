"""The real 1.0.56 engine, run offline with the seams of tools/engine (``pytest -m engine``).

Runs every scenario under tools/engine/scenarios in ONE engine process and checks the facts
service-runs.md §2 reports, each scenario case's ``expect`` first, then the facts that need
a closer look at the trace. Skipped when the release's cached environment is not installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "engine"))

import oracle  # noqa: E402

pytestmark = pytest.mark.engine

SCENARIOS = oracle.load_scenarios()
EXPECT = {f"{name}/{c['name']}": c.get("expect") or {} for name, sc in SCENARIOS.items() for c in sc["cases"]}


@pytest.fixture(scope="module")
def traces():
    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    got = oracle.run_real(oracle.scenario_cases(SCENARIOS), stderr=sys.stderr)
    return {t["name"]: t for t in got}


def rows(trace, label):
    return [r for r in trace["trace"] if r["label"] == label]


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_scenario_case_meets_its_expectations(traces, name):
    trace = traces[name]
    assert "error" not in trace, trace["error"]
    assert EXPECT[name], f"{name} expects nothing"
    assert oracle.check_expectations(trace, EXPECT[name]) == []


def test_fail_stop_fails_the_run_with_the_block_reason_and_still_runs_finally(traces):
    t = traces["fail_flags/fail_stop"]
    assert (t["status"], t["failure_reason"]) == (
        "failed",
        "code block failed. failure reason: Failed to execute code block. Reason: ZeroDivisionError: division by zero")
    assert [r["label"] for r in t["trace"]] == ["boom", "fin"]


def test_empty_loop_terminates_the_run_unless_complete_if_empty(traces):
    assert traces["empty_loop/empty_loop_terminates"]["status"] == "terminated"
    assert traces["empty_loop/empty_loop_complete_if_empty"]["status"] == "completed"


def test_terminate_reports_its_rendered_reason_and_error_code(traces):
    t = traces["terminate/terminate"]
    assert t["errors"] == [{"error_code": "TOO_BIG", "reasoning": "n=7 too big", "confidence_float": 1.0}]
    assert rows(t, "fin")[0]["status"] == "completed"


def test_loop_children_carry_index_and_repr_value_under_their_loop(traces):
    t = traces["loop_prompt_http/loop_prompt_http"]
    squares = rows(t, "square")
    assert [(r["parent"], r["index"], r["value"]) for r in squares] == [("each", 0, "1"), ("each", 1, "2"), ("each", 2, "3")]
    loop_output = rows(t, "each")[0]["output"]
    assert loop_output[0][0]["output_parameter"] == "square_output"  # reduced to its key


def test_http_body_json_filter_gives_native_values_and_plain_interpolation_gives_repr(traces):
    sent = traces["loop_prompt_http/loop_prompt_http"]["loopback"][0]["json"]
    assert sent == {"summary": "three squares", "n": 3, "items": [1, 2, 3], "items_plain": "[1, 2, 3]"}


def test_text_prompt_gets_the_schema_instruction_appended(traces):
    prompt = traces["loop_prompt_http/loop_prompt_http"]["llm_prompts"][0]["prompt"]
    assert prompt.startswith("Summarise 3 squares\n\nPlease respond to the prompt above using the following JSON definition:")


def test_schema_retry_sends_a_validation_prompt(traces):
    prompts = [p["prompt"] for p in traces["text_prompt_schema/text_prompt_schema"]["llm_prompts"]]
    assert len(prompts) == 2 and prompts[0] != prompts[1]


def test_conditional_merges_and_exposes_the_branch_taken(traces):
    t = traces["cond_merge/cond_long"]
    route = rows(t, "route")[0]["output"]
    assert route["branch_taken"] == "path_long" and route["next_block_label"] == "path_long"
    assert t["outputs"]["join_output"] == {"said": "hello there, world", "taken": "path_long"}


def test_a_brace_less_jinja_criterion_is_asked_of_the_llm(traces):
    t = traces["prompt_branches/brace_less_jinja_is_a_prompt"]
    # amount=500 > 100 would take `big` as Jinja; as a prompt the stub said false
    assert [r["label"] for r in t["trace"]] == ["triage", "small"]
    assert rows(t, "triage")[0]["output"]["evaluations"][0]["criteria_type"] == "prompt"


def test_jinja_lax_undefined_renders_empty_and_deep_undefined_fails_even_with_continue_on_failure(traces):
    t = traces["jinja_edges/jinja_edges"]
    assert rows(t, "deep_undefined")[0]["status"] == "failed"
    assert t["outputs"]["render_output"]["missing_attr"] == ""


def test_loop_output_tojson_fails_the_block(traces):
    t = traces["loop_output_tojson/loop_output_tojson"]
    assert rows(t, "dump")[0]["status"] == "failed"
    assert t["llm_prompts"] == []


def test_task_seam_keeps_the_real_task_output_shape(traces):
    out = traces["task_seam/task_seam"]["outputs"]["ext_output"]
    assert out["status"] == "completed" and out["extracted_information"] == {"price": 9}
    assert {"errors", "downloaded_files", "failure_reason"} <= set(out)


def test_webhook_reaches_the_loopback_server_with_the_run_outputs(traces):
    hooks = [r for r in traces["browser_stubbed/browser_stubbed"]["loopback"] if r["path"] == "/hook"]
    assert len(hooks) == 1 and hooks[0]["json"]["status"] == "completed"
    assert hooks[0]["json"]["outputs"]["price_output"] == {"p": 42}


def test_a_refused_run_is_reported_as_http_status_and_body(traces):
    t = traces["params_refused/param_missing"]
    assert t["http_status"] == 400 and "Missing value for parameter need" in str(t["body"])


def test_serve_mode_answers_created_at_once_and_runs_with_registered_stubs():
    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    import hashlib
    import hmac
    import time

    import httpx

    wf = {"title": "served", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "navigation", "label": "nav", "url": "https://shop.example", "navigation_goal": "open"},
        {"block_type": "code", "label": "c", "code": "p = {{ nav_output.extracted_information.v }} * 2"}]}}
    with oracle.RealServer() as server, httpx.Client(base_url=server.url, timeout=60,
                                                     headers={"x-api-key": server.api_key}) as client:
        wpid = client.post("/v1/agents", json={"json_definition": wf}).json()["workflow_permanent_id"]
        stubs = {"tasks": {"nav": {"status": "completed", "extracted_information": {"v": 21}}}, "delays": {"c": 1}}
        assert client.put(f"/_mock/stubs/{wpid}", json=stubs).status_code == 200
        started = client.post("/v1/run/agents", json={"workflow_id": wpid, "webhook_url": server.echo_url + "/hook"})
        assert started.status_code == 200 and started.json()["status"] == "created"
        run_id, seen = started.json()["run_id"], []
        for _ in range(300):
            status = client.get(f"/v1/runs/{run_id}").json()
            seen.append(status["status"])
            if status["status"] in ("completed", "failed", "terminated"):
                break
            time.sleep(0.1)
        assert seen[-1] == "completed" and "running" in seen, seen
        assert status["output"]["c_output"] == {"p": 42}
        for _ in range(150):  # the webhook goes out after the run is marked final
            hooks = [r for r in client.get("/_oracle/received").json() if r["path"] == "/hook"]
            if hooks:
                break
            time.sleep(0.1)
        assert len(hooks) == 1 and hooks[0]["json"]["status"] == "completed"
        signature = hmac.new(server.api_key.encode(), hooks[0]["raw"].encode(), hashlib.sha256).hexdigest()
        assert hooks[0]["headers"]["x-skyvern-signature"] == signature
