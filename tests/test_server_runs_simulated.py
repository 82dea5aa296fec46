"""The mock's runs executed by wflint's own engine (``wflint.engine.simulate``), not a stand-in:
the run endpoints, the worker and the store around the simulator that ``wflint simulate`` uses,
so a run in the mock and a simulated run of the same workflow and stubs agree."""

from __future__ import annotations

import pytest

from wflint.engine import simulate
from wflint.server.testing import make_client

A = {"x-api-key": "key-a"}
PARAMS = [{"parameter_type": "workflow", "key": "amount", "workflow_parameter_type": "integer"}]
BLOCKS = [
    {"block_type": "code", "label": "double", "code": "doubled = amount * 2", "parameter_keys": ["amount"],
     "next_block_label": "route"},
    {"block_type": "conditional", "label": "route", "next_block_label": "done",
     "branch_conditions": [
         {"criteria": {"criteria_type": "jinja2_template", "expression": "{{ double_output.doubled > 100 }}"},
          "next_block_label": "big"},
         {"is_default": True, "next_block_label": "small"}]},
    {"block_type": "code", "label": "big", "code": "size = 'big'", "next_block_label": None},
    {"block_type": "code", "label": "small", "code": "size = 'small'", "next_block_label": None},
    {"block_type": "terminate", "label": "done", "reason": "doubled={{ double_output.doubled }}",
     "error_code": "DONE"},
]
REQUEST = {"title": "route by amount", "workflow_definition": {"version": 2, "parameters": PARAMS, "blocks": BLOCKS}}


@pytest.fixture
def client():
    return make_client()  # the default executor: wflint's engine


def run(client, amount):
    saved = client.post("/v1/agents", json={"json_definition": REQUEST}, headers=A)
    assert saved.status_code == 200, saved.text
    wpid = saved.json()["workflow_permanent_id"]
    started = client.post("/v1/run/agents", json={"agent_id": wpid, "parameters": {"amount": amount}}, headers=A)
    assert started.status_code == 200, started.text
    run_id = started.json()["run_id"]
    assert client.app.state.wflint.run_worker.wait(run_id, 60)
    return client.get(f"/v1/runs/{run_id}", headers=A).json(), client.get(f"/v1/runs/{run_id}/timeline", headers=A).json()


@pytest.mark.parametrize("amount, branch", [(70, "big"), (7, "small")])
def test_a_run_in_the_mock_takes_the_branch_the_engine_takes(client, amount, branch):
    reply, timeline = run(client, amount)
    expected = simulate(REQUEST, {"name": "same", "parameters": {"amount": amount}}, network=False)
    assert reply["status"] == expected["status"] == "terminated"
    assert reply["failure_reason"] == expected["failure_reason"] == f"terminate block terminated. Reason: doubled={amount * 2}"
    assert [e["error_code"] for e in reply["errors"]] == ["DONE"]
    assert reply["output"]["double_output"] == {"doubled": amount * 2}
    assert reply["output"][f"{branch}_output"] == {"size": branch}
    other = "small" if branch == "big" else "big"
    assert f"{other}_output" not in reply["output"]
    assert branch in _labels(timeline) and other not in _labels(timeline)


def _labels(timeline):
    """Every block row's label in a timeline, children (a branch under its conditional) included."""
    out = set()
    for entry in timeline:
        out.add(entry["block"]["label"])
        out |= _labels(entry.get("children") or [])
    return out


def test_a_missing_parameter_is_refused_before_the_engine_runs(client):
    saved = client.post("/v1/agents", json={"json_definition": REQUEST}, headers=A)
    wpid = saved.json()["workflow_permanent_id"]
    r = client.post("/v1/run/agents", json={"agent_id": wpid, "parameters": {}}, headers=A)
    assert r.status_code == 400
    assert r.json()["detail"] == f"Missing value for parameter amount in workflow {wpid}"


HTTP_REQUEST = {"title": "post to the crm", "workflow_definition": {"version": 2, "parameters": [
    {"parameter_type": "aws_secret", "key": "crm_token", "aws_key": "crm/token"}], "blocks": [
    {"block_type": "http_request", "label": "push", "method": "POST", "url": "https://crm.example.com/api/leads",
     "headers": {"Authorization": "Bearer {{ crm_token }}"}, "body": {"name": "Ada"}}]}}


def test_the_mocks_runs_take_the_http_and_secrets_tables_of_wflint_test(client):
    wpid = client.post("/v1/agents", json={"json_definition": HTTP_REQUEST}, headers=A).json()["workflow_permanent_id"]
    table = {"secrets": {"crm_token": "tok_live_1234567890"},
             "http": [{"method": "POST", "url": "https://crm.example.com/api/leads", "status": 201, "body": {"id": 7}}]}
    assert client.put(f"/_mock/stubs/{wpid}", json=table, headers=A).status_code == 200
    started = client.post("/v1/run/agents", json={"agent_id": wpid, "parameters": {}}, headers=A)
    run_id = started.json()["run_id"]
    assert client.app.state.wflint.run_worker.wait(run_id, 60)
    reply = client.get(f"/v1/runs/{run_id}", headers=A).json()
    assert reply["status"] == "completed", reply
    push = reply["output"]["push_output"]
    assert push["status_code"] == 201 and push["response_body"] == {"id": 7}
    assert push["request_headers"]["Authorization"] == "Bearer *****"
    assert "tok_live_1234567890" not in str(reply)


def test_the_mock_refuses_a_malformed_http_table_saying_where(client):
    wpid = client.post("/v1/agents", json={"json_definition": HTTP_REQUEST}, headers=A).json()["workflow_permanent_id"]
    refused = client.put(f"/_mock/stubs/{wpid}", json={"http": [{"url": "x", "status": "ok"}]}, headers=A)
    assert refused.status_code in (400, 422), refused.text
    assert "http[0].status" in refused.text
