"""The mock's runs, in-process: starting, statuses over time, reads, cancel, stubs, refusals,
organizations, limits. The engine is the test stand-in ``run_fakes.FakeEngine``."""

from __future__ import annotations

import time

import pytest

from run_fakes import FakeEngine
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
B = {"x-api-key": "key-b"}
PARAMS = [{"parameter_type": "workflow", "key": "need", "workflow_parameter_type": "string"},
          {"parameter_type": "workflow", "key": "n", "workflow_parameter_type": "integer", "default_value": 3}]
BLOCKS = [{"block_type": "code", "label": "first", "code": "x = 1"},
          {"block_type": "code", "label": "second", "code": "y = 2"}]
FINAL = {"completed", "failed", "terminated", "canceled", "timed_out"}


@pytest.fixture
def engine():
    return FakeEngine()


@pytest.fixture
def client(engine):
    return make_client(make_state(run_executor=engine))


def save(client, blocks=BLOCKS, params=PARAMS, headers=A, title="runs"):
    r = client.post("/v1/agents", json={"json_definition": {"title": title, "workflow_definition":
                                                            {"parameters": params, "blocks": blocks}}}, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["workflow_permanent_id"]


def start(client, wpid, parameters=None, headers=A, **extra):
    return client.post("/v1/run/agents", json={"agent_id": wpid, "parameters": parameters or {"need": "x"}, **extra},
                       headers=headers)


def until_running(client, run_id, headers=A, timeout=20):
    deadline = time.monotonic() + timeout
    while client.get(f"/v1/runs/{run_id}", headers=headers).json()["status"] != "running":
        assert time.monotonic() < deadline, "the run never ran"
        time.sleep(0.01)


def finish(client, run_id, headers=A):
    assert client.app.state.wflint.run_worker.wait(run_id, 20)
    return client.get(f"/v1/runs/{run_id}", headers=headers).json()


def test_a_run_starts_created_and_completes_with_the_stubbed_outputs(client, engine):
    wpid = save(client)
    client.put(f"/_mock/stubs/{wpid}", json={"blocks": {"first": {"output": {"price": 7}}}}, headers=A)
    r = start(client, wpid)
    assert r.status_code == 200, r.text
    created = r.json()
    assert created["status"] == "created" and created["run_id"].startswith("wr_")
    assert created["output"] is None and created["attempts"] == [] and created["step_count"] is None
    assert created["run_request"]["parameters"] == {"need": "x"}  # as sent
    assert created["run_request"]["title"] == "runs" and created["run_request"]["workflow_id"] == wpid
    done = finish(client, created["run_id"])
    assert done["status"] == "completed" and done["failure_reason"] is None
    assert done["output"] == {"first_output": {"price": 7}, "second_output": {}, "extracted_information": []}
    assert done["run_request"]["parameters"] == {"need": "x", "n": 3}  # resolved, with the default
    assert done["queued_at"] <= done["started_at"] <= done["finished_at"]
    assert [a["status"] for a in done["attempts"]] == ["completed"]
    request, case = engine.calls[-1]
    assert case["parameters"] == {"need": "x", "n": 3} and case["blocks"] == {"first": {"output": {"price": 7}}}
    assert [b["label"] for b in request["workflow_definition"]["blocks"]] == ["first", "second"]


def test_statuses_are_seen_changing_while_a_slow_block_runs(client):
    wpid = save(client)
    client.put(f"/_mock/stubs/{wpid}", json={"delays": {"second": 1.0}}, headers=A)
    run_id = start(client, wpid).json()["run_id"]
    seen = []
    deadline = time.monotonic() + 30
    while (not seen or seen[-1] not in FINAL) and time.monotonic() < deadline:
        status = client.get(f"/v1/runs/{run_id}", headers=A).json()["status"]
        if not seen or seen[-1] != status:
            seen.append(status)
        time.sleep(0.02)
    assert "running" in seen and seen[-1] == "completed"
    order = ["created", "queued", "running", "completed"]
    assert [order.index(s) for s in seen] == sorted(order.index(s) for s in seen)


def test_the_timeline_shows_each_block_row_newest_first(client):
    wpid = save(client)
    client.put(f"/_mock/stubs/{wpid}", json={"blocks": {"second": {"fail": "boom"}}}, headers=A)
    run_id = start(client, wpid).json()["run_id"]
    assert finish(client, run_id)["status"] == "failed"
    items = client.get(f"/v1/runs/{run_id}/timeline", headers=A).json()
    assert [(i["block"]["label"], i["block"]["status"]) for i in items] == [("second", "failed"), ("first", "completed")]
    second = items[0]["block"]
    assert second["failure_reason"] == "boom" and second["workflow_run_id"] == run_id
    assert second["workflow_run_block_id"].startswith("wrb_") and items[0]["children"] == []


def test_failed_and_terminated_runs_report_the_engines_reason_and_errors(client):
    wpid = save(client)
    client.put(f"/_mock/stubs/{wpid}", json={"blocks": {"first": {"status": "terminated", "reason": "n=3 too big",
                                                                    "error_code": "TOO_BIG"}}}, headers=A)
    done = finish(client, start(client, wpid).json()["run_id"])
    assert done["status"] == "terminated"
    assert done["failure_reason"] == "code block terminated. Reason: n=3 too big"
    assert done["errors"] == [{"error_code": "TOO_BIG", "reasoning": "n=3 too big", "confidence_float": 1.0}]
    legacy = client.get(f"/api/v1/workflows/runs/{done['run_id']}", headers=A).json()
    assert legacy["failure_category"] is None and legacy["outputs"] == done["output"]


def test_no_stubs_registered_means_every_block_gets_an_empty_stub_table(client, engine):
    wpid = save(client)
    assert finish(client, start(client, wpid).json()["run_id"])["status"] == "completed"
    _, case = engine.calls[-1]
    assert {k: v for k, v in case.items() if k not in ("name", "parameters")} == {}


# --------------------------------------------------------------------------- refusals


def test_missing_and_ill_typed_parameters_are_refused_before_a_run_exists(client, engine):
    wpid = save(client)
    r = start(client, wpid, parameters={"other": 1})
    assert (r.status_code, r.json()) == (400, {"detail": f"Missing value for parameter need in workflow {wpid}"})
    r = start(client, wpid, parameters={"need": "x", "n": "abc"})
    assert (r.status_code, r.json()) == (400, {"detail": "Invalid workflow parameter. Expected parameter type: "
                                                         "integer. Value: abc."})
    assert engine.calls == [] and client.app.state.wflint.runs.unfinished() == []


def test_an_unknown_or_other_organizations_workflow_is_not_found(client):
    wpid = save(client)
    for headers, target in ((A, "wpid_123"), (B, wpid)):
        r = start(client, target, headers=headers)
        assert (r.status_code, r.json()) == (404, {"detail": f"Workflow not found. workflow_permanent_id={target}"})


def test_a_body_without_the_workflow_id_is_the_services_422(client):
    r = client.post("/v1/run/agents", json={"parameters": {}}, headers=A)
    assert r.status_code == 422
    assert r.json() == {"detail": [{"type": "missing", "loc": ["body", "agent_id"], "msg": "Field required",
                                    "input": {"parameters": {}}}]}
    assert client.post("/v1/run/agents", json={"agent_id": "wpid_1"}).status_code == 403


def test_a_bad_webhook_url_is_refused_with_the_run_field_name(client):
    wpid = save(client)
    r = start(client, wpid, webhook_url="ftp://example.com/x")
    assert r.status_code == 400 and r.json()["detail"].startswith("Invalid webhook_url: unsupported scheme.")


def test_runs_of_another_organization_are_not_found(client):
    run_id = start(client, save(client)).json()["run_id"]
    finish(client, run_id)
    assert client.get(f"/v1/runs/{run_id}", headers=B).json() == {"detail": f"Task run not found {run_id}"}
    assert client.get(f"/v1/runs/{run_id}/timeline", headers=B).json() == {"detail": f"Run not found {run_id}"}
    assert client.post(f"/v1/runs/{run_id}/cancel", headers=B).json() == {"detail": f"Run not found {run_id}"}
    assert client.get(f"/api/v1/workflows/runs/{run_id}", headers=B).json() == {"detail": f"WorkflowRun {run_id} not found"}
    assert client.get(f"/v1/runs/{run_id}", headers=A).status_code == 200


def test_the_legacy_run_path_takes_data_and_answers_ids(client):
    wpid = save(client)
    r = client.post(f"/api/v1/workflows/{wpid}/run", json={"data": {"need": "y", "n": "5"}}, headers=A)
    assert r.status_code == 200
    body = r.json()
    assert list(body) == ["workflow_id", "workflow_run_id", "agent_id", "agent_run_id"]
    finish(client, body["workflow_run_id"])
    status = client.get(f"/api/v1/workflows/{wpid}/runs/{body['workflow_run_id']}", headers=A).json()
    assert status["parameters"] == {"need": "y", "n": 5} and status["status"] == "completed"


# --------------------------------------------------------------------------- cancel


def test_cancel_stops_a_running_run_at_the_next_block(client, engine):
    wpid = save(client)
    client.put(f"/_mock/stubs/{wpid}", json={"delays": {"first": 20}}, headers=A)  # a cancel cuts it short
    run_id = start(client, wpid).json()["run_id"]
    until_running(client, run_id)
    r = client.post(f"/v1/runs/{run_id}/cancel", headers=A)
    assert (r.status_code, r.json()) == (200, None)
    done = finish(client, run_id)
    assert done["status"] == "canceled"
    labels = [i["block"]["label"] for i in client.get(f"/v1/runs/{run_id}/timeline", headers=A).json()]
    assert "second" not in labels


def test_cancel_of_a_finished_run_changes_nothing(client):
    run_id = start(client, save(client)).json()["run_id"]
    before = finish(client, run_id)
    assert client.post(f"/v1/runs/{run_id}/cancel", headers=A).status_code == 200
    after = client.get(f"/v1/runs/{run_id}", headers=A).json()
    assert after["status"] == before["status"] == "completed"


# --------------------------------------------------------------------------- stubs


def test_stub_registration_round_trips_and_is_checked(client):
    wpid = save(client)
    table = {"name": "case", "blocks": {"first": {"output": 1}}, "delays": {"*": 0.1}}
    assert client.put(f"/_mock/stubs/{wpid}", json=table, headers=A).json()["stubs"] == table
    assert client.get(f"/_mock/stubs/{wpid}", headers=A).json()["stubs"] == table
    assert client.get(f"/_mock/stubs/{wpid}", headers=B).status_code == 404  # organizations apart
    assert client.put(f"/_mock/stubs/{wpid}", json={"blockz": {}}, headers=A).status_code == 422
    r = client.put(f"/_mock/stubs/{wpid}", json={"delays": {"first": 10**6}}, headers=A)
    assert r.status_code == 422 and "from 0 to 600" in r.json()["detail"]
    assert client.put("/_mock/stubs/wpid_404", json={}, headers=A).status_code == 404
    assert client.delete(f"/_mock/stubs/{wpid}", headers=A).status_code == 200
    assert client.get(f"/_mock/stubs/{wpid}", headers=A).status_code == 404
    assert client.put(f"/_mock/stubs/{wpid}", json={}).status_code == 403


def test_stubs_from_a_directory_match_by_permanent_id_or_title(tmp_path, engine):
    (tmp_path / "by-title.yaml").write_text("workflow: runs\nblocks:\n  first:\n    output: from-yaml\n")
    c = make_client(make_state(run_executor=engine, stubs_dir=str(tmp_path)))
    wpid = save(c)
    assert finish(c, start(c, wpid).json()["run_id"])["output"]["first_output"] == "from-yaml"
    c.put(f"/_mock/stubs/{wpid}", json={"blocks": {"first": {"output": "registered"}}}, headers=A)
    assert finish(c, start(c, wpid).json()["run_id"])["output"]["first_output"] == "registered"


def test_a_bad_stub_directory_is_a_clear_error(tmp_path):
    from wflint.server.runs.stubs import StubDirectory, StubError

    (tmp_path / "x.json").write_text('{"blocks": []}')
    with pytest.raises(StubError, match="blocks must be an object"):
        StubDirectory.read(tmp_path)


# --------------------------------------------------------------------------- limits


def test_run_bodies_pass_the_hostile_input_limits(engine):
    from wflint.server.protocol.limits import ServerLimits

    c = make_client(make_state(run_executor=engine, limits=ServerLimits(body_bytes=2000, depth=20, queued_runs=1)))
    wpid = save(c, blocks=[BLOCKS[0]])
    assert start(c, wpid, title="x" * 3000).status_code == 413
    deep = {"need": "x", "deep": {}}
    node = deep["deep"]
    for _ in range(30):
        node["a"] = {}
        node = node["a"]
    r = start(c, wpid, parameters=deep)
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "json_invalid"
    c.put(f"/_mock/stubs/{wpid}", json={"delays": {"first": 1}}, headers=A)
    first = start(c, wpid)
    assert first.status_code == 200
    r = start(c, wpid)
    assert r.status_code == 429 and "queued-runs" in r.json()["detail"]
    finish(c, first.json()["run_id"])
    assert start(c, wpid).status_code == 200


def test_failure_category_is_the_declared_error_codes_else_the_classifiers_fallback():
    from wflint.server.runs.replies import UNKNOWN_FAILURE, status_reply

    base = {"run_id": "wr_1", "organization_id": "o_1", "workflow_permanent_id": "wpid_1", "workflow_title": "t",
            "status": "failed", "parameters": {}, "proxy_location": "RESIDENTIAL", "run_with": "agent",
            "created_at": "2026-01-01T00:00:00.000000", "modified_at": "2026-01-01T00:00:00.000000"}
    declared = {"error_code": "NOT_FOUND", "reasoning": "record 42 missing", "confidence_float": 1.0,
                "error_type": "USER_DEFINED_ERROR"}
    assert status_reply({**base, "errors": [declared]})["failure_category"] == [
        {"category": "NOT_FOUND", "confidence_float": 1.0, "reasoning": "record 42 missing"}]
    assert status_reply({**base, "errors": []})["failure_category"] == UNKNOWN_FAILURE
    assert status_reply({**base, "status": "terminated", "errors": [declared]})["failure_category"] is None


def test_serve_refuses_a_bad_stubs_directory_with_a_usage_error(tmp_path):
    from click.testing import CliRunner

    from wflint.server.cli import serve

    (tmp_path / "broken.yaml").write_text("blocks: [not, a, mapping]\n")
    result = CliRunner().invoke(serve, ["--stubs", str(tmp_path), "--api-key", "k=o_1", "--port", "0"])
    assert result.exit_code == 2
    assert "--stubs" in result.output and "blocks must be an object keyed by block label" in result.output


def test_loop_children_are_nested_under_their_loop_row_with_index_and_value():
    def loop_engine(request, case, *, release="1.0.56", network=True, on_block=None):
        rows = [{"label": "each", "block_type": "for_loop", "status": "running", "parent": None},
                {"label": "body", "block_type": "code", "status": "running", "parent": "each", "index": 0,
                 "value": {"id": 1}},
                {"label": "body", "block_type": "code", "status": "completed", "parent": "each", "index": 0,
                 "value": {"id": 1}, "output": {"x": 1}},
                {"label": "body", "block_type": "code", "status": "running", "parent": "each", "index": 1, "value": 2},
                {"label": "body", "block_type": "code", "status": "completed", "parent": "each", "index": 1,
                 "value": 2, "output": {"x": 2}},
                {"label": "each", "block_type": "for_loop", "status": "completed", "parent": None, "output": []}]
        for row in rows:
            on_block(row)
        return {"name": case["name"], "status": "completed", "failure_reason": None, "errors": [], "outputs": {},
                "trace": [rows[0] | rows[5], rows[1] | rows[2], rows[3] | rows[4]], "llm_prompts": []}

    c = make_client(make_state(run_executor=loop_engine))
    body = [{"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "items",
             "loop_blocks": [{"block_type": "code", "label": "body", "code": "x = 1"}]}]
    wpid = save(c, blocks=body, params=[{"parameter_type": "workflow", "key": "items",
                                         "workflow_parameter_type": "json", "default_value": [1, 2]}])
    run_id = start(c, wpid, parameters={"items": [1, 2]}).json()["run_id"]
    assert finish(c, run_id)["status"] == "completed"
    [loop] = c.get(f"/v1/runs/{run_id}/timeline", headers=A).json()
    assert loop["block"]["label"] == "each" and loop["block"]["status"] == "completed"
    children = [(k["block"]["current_index"], k["block"]["current_value"], k["block"]["output"]) for k in loop["children"]]
    assert children == [(1, "2", {"x": 2}), (0, "{'id': 1}", {"x": 1})]  # newest first, values as str()
    assert all(k["block"]["parent_workflow_run_block_id"] == loop["block"]["workflow_run_block_id"]
               for k in loop["children"])
