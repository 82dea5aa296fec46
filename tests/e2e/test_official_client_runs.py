"""End to end: the official Python client (``skyvern`` 1.0.56) saves a workflow in the mock,
starts runs, polls them to their final status, reads outputs and timelines, cancels, and
gets the service's refusals, over real HTTP. The mock runs with the test stand-in engine
(``run_fakes.FakeEngine``); the real engine is wired in and tested by its own suite."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

skyvern_client = pytest.importorskip("skyvern.client")
from skyvern.client.errors import BadRequestError, NotFoundError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from run_fakes import Receiver, ThreadServer, verify_skyvern_webhook  # noqa: E402

KEY = "e2e-key"
FINAL = {"completed", "failed", "terminated", "canceled", "timed_out"}
DEFINITION = {
    "title": "E2E run",
    "workflow_definition": {
        "parameters": [{"parameter_type": "workflow", "key": "invoice_id", "workflow_parameter_type": "integer"}],
        "blocks": [
            {"block_type": "navigation", "label": "open", "url": "https://example.com/{{ invoice_id }}",
             "navigation_goal": "open the invoice"},
            {"block_type": "extraction", "label": "read", "data_extraction_goal": "the total"},
        ],
    },
}


@pytest.fixture(scope="module")
def server():
    s = ThreadServer()
    yield s
    s.stop()


@pytest.fixture
def client(server):
    return skyvern_client.Skyvern(base_url=server.base, api_key=KEY)


def poll(client, run_id, timeout=20):
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        run = client.get_run(run_id)
        if not seen or seen[-1] != run.status:
            seen.append(run.status)
        if run.status in FINAL:
            return run, seen
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} did not finish: {seen}")


def test_the_client_runs_a_saved_workflow_polls_it_and_reads_its_outputs(server, client):
    import httpx

    wpid = client.create_workflow(json_definition=DEFINITION).workflow_permanent_id
    httpx.put(f"{server.base}/_mock/stubs/{wpid}", headers={"x-api-key": KEY},
              json={"blocks": {"read": {"output": {"extracted_information": {"total": 42}}}}, "delays": {"open": 1.5}})
    receiver = Receiver()
    try:
        started = client.run_workflow(agent_id=wpid, parameters={"invoice_id": 7}, webhook_url=receiver.url + "/done")
        assert started.status == "created" and started.run_id.startswith("wr_")
        assert started.run_request.parameters == {"invoice_id": 7}
        run, seen = poll(client, started.run_id)
        assert run.status == "completed" and "running" in seen
        assert run.output["read_output"] == {"extracted_information": {"total": 42}}
        assert run.run_request.parameters == {"invoice_id": 7}
        timeline = client.get_run_timeline(started.run_id)
        assert [t.block.label for t in timeline] == ["read", "open"]
        hook = receiver.wait_for(1)[0]
        assert verify_skyvern_webhook(KEY, hook["body"], hook["headers"])
    finally:
        receiver.close()


@pytest.mark.parametrize("stub, status, reason", [
    ({"read": {"fail": "no total on the page"}}, "failed", "extraction block failed. failure reason: no total on the page"),
    ({"open": {"status": "terminated", "reason": "captcha"}}, "terminated", "navigation block terminated. Reason: captcha"),
])
def test_failed_and_terminated_runs_reach_the_client(server, client, stub, status, reason):
    import httpx

    wpid = client.create_workflow(json_definition=DEFINITION).workflow_permanent_id
    httpx.put(f"{server.base}/_mock/stubs/{wpid}", headers={"x-api-key": KEY}, json={"blocks": stub})
    run, _ = poll(client, client.run_workflow(agent_id=wpid, parameters={"invoice_id": "7"}).run_id)
    assert (run.status, run.failure_reason) == (status, reason)


def test_the_client_cancels_a_run(server, client):
    import httpx

    wpid = client.create_workflow(json_definition=DEFINITION).workflow_permanent_id
    httpx.put(f"{server.base}/_mock/stubs/{wpid}", headers={"x-api-key": KEY}, json={"delays": {"open": 20}})  # a cancel cuts it short
    run_id = client.run_workflow(agent_id=wpid, parameters={"invoice_id": 1}).run_id
    client.cancel_run(run_id)
    run, _ = poll(client, run_id)
    assert run.status == "canceled"


def test_the_client_gets_the_services_refusals(client):
    wpid = client.create_workflow(json_definition=DEFINITION).workflow_permanent_id
    with pytest.raises(BadRequestError) as missing:
        client.run_workflow(agent_id=wpid, parameters={})
    assert missing.value.body == {"detail": f"Missing value for parameter invoice_id in workflow {wpid}"}
    with pytest.raises(BadRequestError) as typed:
        client.run_workflow(agent_id=wpid, parameters={"invoice_id": "seven"})
    assert "Expected parameter type: integer. Value: seven." in typed.value.body["detail"]
    with pytest.raises(NotFoundError):
        client.get_run("wr_1")
