"""Engine semantics that workflows written elsewhere meet (issue 30), each observed on the real
1.0.56 engine: the cases of tools/engine/scenarios/written_elsewhere.yaml run through `wflint
simulate` (a workflow file, as the command reads it) and must meet the same ``expect`` the
engine meets (`pytest -m engine tests/test_engine_oracle.py` checks the engine side; the refusal
bodies are checked against the engine below)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from wflint.simulate.loading import load_workflow
from wflint.simulate.runs import run_case

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "engine"))

import loopback  # noqa: E402
import oracle  # noqa: E402

SCENARIO = ROOT / "tools" / "engine" / "scenarios" / "written_elsewhere.yaml"
CASES = oracle.scenario_cases(oracle.load_scenarios([SCENARIO]))
EXPECT = {f"written_elsewhere/{c['name']}": c.get("expect") for c in oracle.load_scenarios([SCENARIO])["written_elsewhere"]["cases"]}

V1_ROUTED = {"title": "v1 routed", "workflow_definition": {"version": 1, "parameters": [], "blocks": [
    {"block_type": "code", "label": "a", "code": "x = 1", "next_block_label": "b"},
    {"block_type": "code", "label": "b", "code": "x = 2"}]}}
V1_ROUTED_MESSAGE = ("workflow_definition.version must be 2 or greater when using conditional blocks or "
                     "explicit next_block_label routing.")


def simulate_file(tmp_path: Path, workflow, case: dict, suffix: str = ".json") -> dict:
    """What `wflint simulate --format json` answers for one case of a workflow file."""
    path = tmp_path / f"workflow{suffix}"
    path.write_text(json.dumps(workflow) if suffix == ".json" else yaml.safe_dump(workflow, allow_unicode=True),
                    encoding="utf-8")
    loaded = load_workflow(path)
    refusal = loaded.refusal()
    if refusal:
        return {"name": case.get("name"), **refusal}
    return run_case(loaded.request, case).result


@pytest.fixture(scope="module")
def echo_url():
    return loopback.start()


@pytest.mark.parametrize("engine_case", CASES, ids=[c["name"] for c in CASES])
def test_simulate_meets_what_the_engine_was_seen_to_do(engine_case, echo_url, tmp_path):
    workflow = loopback.substitute(engine_case["workflow"], echo_url)
    trace = simulate_file(tmp_path, workflow, {"name": engine_case["name"], **engine_case["case"]})
    assert EXPECT[engine_case["name"]], "a case that expects nothing checks nothing"
    assert oracle.check_expectations(trace, EXPECT[engine_case["name"]]) == []


def test_an_empty_value_in_a_prompt_criterion_reaches_the_llm_as_a_marker(tmp_path, echo_url):
    case = next(c for c in CASES if c["name"].endswith("an_empty_value_in_a_prompt_criterion_is_marked"))
    trace = simulate_file(tmp_path, case["workflow"], dict(case["case"]))
    route = trace["trace"][0]["output"]
    assert route["evaluations"][0]["rendered_expression"] == "is the page about (empty value)?"
    assert "Condition: is the page about (empty value)?" in route["llm_prompt"]


def test_a_refused_save_answers_in_the_services_words_for_a_json_file(tmp_path):
    trace = simulate_file(tmp_path, V1_ROUTED, {"name": "any"})
    assert trace["http_status"] == 422
    assert trace["body"] == {"detail": [{
        "type": "value_error", "loc": ["body", "json_definition", "workflow_definition"],
        "msg": "Value error, " + V1_ROUTED_MESSAGE, "input": V1_ROUTED["workflow_definition"], "ctx": {"error": {}}}]}


def test_a_refused_save_answers_in_the_services_words_for_a_yaml_file(tmp_path):
    trace = simulate_file(tmp_path, V1_ROUTED, {"name": "any"}, suffix=".yaml")
    assert trace == {"name": "any", "http_status": 422,
                     "body": {"detail": "workflow_definition: Value error, " + V1_ROUTED_MESSAGE}}


def test_every_case_of_a_refused_workflow_gets_the_refusal(tmp_path):
    path = tmp_path / "w.json"
    path.write_text(json.dumps(V1_ROUTED))
    loaded = load_workflow(path)
    assert loaded.refusal() == loaded.refusal() and loaded.refusal()["http_status"] == 422


def test_without_the_serve_extra_a_refusal_is_worded_by_the_checks_not_an_internal_error(tmp_path, monkeypatch):
    """The service's own words come from the mock's save pipeline (pydantic, the serve extra);
    an install without it still refuses the run, with the status and wflint's message."""
    import sys

    monkeypatch.setitem(sys.modules, "wflint.server.answers", None)  # importing it raises ImportError
    path = tmp_path / "w.json"
    path.write_text(json.dumps(V1_ROUTED))
    refusal = load_workflow(path).refusal()
    assert refusal["http_status"] == 422 and refusal["body"]["detail"]


@pytest.mark.engine
def test_the_engine_refuses_the_save_with_the_same_bodies():
    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    got = oracle.run_real([
        {"name": "json", "workflow": V1_ROUTED, "case": {}},
        {"name": "yaml", "workflow": yaml.safe_dump(V1_ROUTED), "case": {}}], stderr=sys.stderr)
    assert got[0]["http_status"] == 422 and got[0]["body"]["detail"][0]["msg"] == "Value error, " + V1_ROUTED_MESSAGE
    assert got[0]["body"]["detail"][0]["input"] == V1_ROUTED["workflow_definition"]
    assert got[1] == {"name": "yaml", "http_status": 422,
                      "body": {"detail": "workflow_definition: Value error, " + V1_ROUTED_MESSAGE}}


# Refused before the run, or failed before any block: the service repository's own definitions
# met these (the real-seed run); each answer is the engine's, checked by the engine test below.
def _wf(parameters, blocks=({"block_type": "code", "label": "c", "code": "x = 1"},)):
    return {"title": "credentials", "workflow_definition": {"parameters": list(parameters), "blocks": list(blocks)}}


CRED = {"parameter_type": "workflow", "key": "login", "workflow_parameter_type": "credential_id"}
BEFORE_THE_RUN = [
    ("credential_id_value_not_text", _wf([CRED]), {"parameters": {"login": ["a"]}},
     {"http_status": 400, "body": {"detail": "Invalid credential ID: <non-string value of type list>. "
                                             "Failed to resolve to a valid credential."}}),
    ("credential_id_unknown", _wf([CRED]), {"parameters": {"login": "cred_123"}},
     {"http_status": 400, "body": {"detail": "Invalid credential ID: cred_123. Failed to resolve to a valid credential."}}),
    ("credential_id_absent_is_allowed", _wf([CRED]), {}, {"status": "completed"}),
    ("credential_pool_is_checked_whole",
     _wf([{"parameter_type": "credential", "key": "pool", "credential_id": "cred_first",
           "credential_ids": ["cred_first", "cred_second"]}]), {},
     {"http_status": 400, "body": {"detail": "Invalid credential ID: cred_first, cred_second. "
                                             "Failed to resolve to a valid credential."}}),
    ("no_blocks_to_run", _wf([], []), {},
     {"http_status": 400, "body": {"detail": "Workflow wpid_simulated has no blocks to run. "
                                             "Add at least one block before running it."}}),
    ("bitwarden_without_a_store",
     _wf([{"parameter_type": "bitwarden_login_credential", "key": "creds",
           "bitwarden_client_id_aws_secret_key": "a", "bitwarden_client_secret_aws_secret_key": "b",
           "bitwarden_master_password_aws_secret_key": "c", "url_parameter_key": "site",
           "bitwarden_collection_id": "col"},
          {"parameter_type": "workflow", "key": "site", "workflow_parameter_type": "string", "default_value": "x"}]), {},
     {"status": "failed", "path": [], "failure_reason": "Failed to initialize workflow run context. failure reason: "
                                                         "Unexpected error: Bitwarden client ID not found"}),
]


@pytest.mark.parametrize("name, workflow, case, expect", BEFORE_THE_RUN, ids=[c[0] for c in BEFORE_THE_RUN])
def test_what_the_engine_refuses_or_fails_before_any_block(tmp_path, name, workflow, case, expect):
    trace = simulate_file(tmp_path, workflow, {"name": name, **case})
    assert oracle.check_expectations(trace, expect) == []


@pytest.mark.engine
def test_the_engine_refuses_or_fails_those_runs_the_same_way():
    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    got = oracle.run_real([{"name": n, "workflow": w, "case": c} for n, w, c, _ in BEFORE_THE_RUN], stderr=sys.stderr)
    for (name, _, _, expect), trace in zip(BEFORE_THE_RUN, got, strict=True):
        if "body" in expect:  # the engine names its own workflow: compare the id-free text
            expect = {**expect, "body": {"detail": expect["body"]["detail"].replace("wpid_simulated", "")}}
            trace = {**trace, "body": {"detail": re.sub(r"wpid_\d+", "", str((trace.get("body") or {}).get("detail")))}}
        assert oracle.check_expectations(trace, expect) == [], name


def test_a_url_is_sent_percent_encoded_and_kept_as_rendered(echo_url):
    from wflint.engine import simulate

    request = _wf([], [{"block_type": "http_request", "label": "h", "method": "GET",
                        "url": echo_url + "/items/{{ [1, 'a b'] }}"}])
    out = simulate(request, {"name": "quoted"})["outputs"]["h_output"]
    assert out["response_body"]["path"] == "/items/%5B1,%20'a%20b'%5D"
    assert out["request_url"].endswith("/items/[1, 'a b']")


def test_an_unparseable_url_fails_the_block_and_never_crashes():
    from wflint.engine import simulate

    request = _wf([], [{"block_type": "navigation", "label": "n", "url": "[[{'a': 1}]]", "navigation_goal": "g",
                        "continue_on_failure": True},
                       {"block_type": "http_request", "label": "h", "method": "GET", "url": "http://[x/y"}])
    trace = simulate(request, {"name": "brackets"})["trace"]
    # the simulator's safety net (the engine's own wording for these two was not observed)
    assert [(r["label"], r["status"]) for r in trace] == [("n", "failed"), ("h", "failed")]
    assert "malformed" in trace[0]["failure_reason"] and "malformed" in trace[1]["failure_reason"]


def test_a_loop_outputs_output_parameter_reprs_as_the_engines_model():
    from wflint.engine.context import OutputParameter

    text = repr(OutputParameter("body_output"))
    assert text.startswith("OutputParameter(parameter_type=<ParameterType.OUTPUT: 'output'>, key='body_output', "
                           "description='Output parameter for block body', output_parameter_id='op_simulated'")
    assert text.endswith("deleted_at=None)") and "created_at=datetime.datetime(" in text


def test_a_loops_output_is_listed_after_its_first_pass():
    # observed (generated run, seed 30, workflow 292): the engine writes a loop's output row after
    # its first pass, so the run's outputs list it there, not where the loop finished
    from wflint.engine import simulate

    request = _wf([], [{"block_type": "for_loop", "label": "each", "loop_variable_reference": "{{ [1, 2] }}",
                        "loop_blocks": [
                            {"block_type": "conditional", "label": "route", "branch_conditions": [
                                {"criteria": {"criteria_type": "jinja2_template", "expression": "{{ current_index == 1 }}"},
                                 "next_block_label": "later"},
                                {"is_default": True, "next_block_label": None}]},
                            {"block_type": "code", "label": "later", "code": "y = 1"}]}])
    outputs = simulate(request, {"name": "order"})["outputs"]
    assert list(outputs) == ["route_output", "each_output", "later_output", "extracted_information"]
