"""The mock's webhooks: signed bodies a receiver verifies as Skyvern's documentation shows, for
completed, failed, terminated and canceled runs; the service's retries and
``webhook_failure_reason``."""

from __future__ import annotations

import json
import time

import pytest

from run_fakes import FakeEngine, Receiver, verify_skyvern_webhook
from wflint.server.runs import webhooks
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
BLOCKS = [{"block_type": "code", "label": "first", "code": "x = 1"}]
STUBS = {"completed": {"first": {"output": {"x": 1}}}, "failed": {"first": {"fail": "boom"}},
         "terminated": {"first": {"status": "terminated", "reason": "stop here"}}}


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def client():
    return make_client(make_state(run_executor=FakeEngine()))


def run(client, hook_url, stubs=None, delays=None, headers=A):
    body = {"title": "hooks", "workflow_definition": {"parameters": [], "blocks": BLOCKS}}
    wpid = client.post("/v1/agents", json={"json_definition": body}, headers=headers).json()["workflow_permanent_id"]
    client.put(f"/_mock/stubs/{wpid}", json={"blocks": stubs or {}, "delays": delays or {}}, headers=headers)
    r = client.post("/v1/run/agents", json={"agent_id": wpid, "webhook_url": hook_url}, headers=headers)
    assert r.status_code == 200, r.text
    return r.json()["run_id"]


@pytest.mark.parametrize("status", ["completed", "failed", "terminated"])
def test_the_webhook_of_a_finished_run_verifies_with_the_api_key(client, receiver, status):
    run_id = run(client, receiver.url + "/hook", STUBS[status])
    hook = receiver.wait_for(1)[0]
    assert verify_skyvern_webhook("key-a", hook["body"], hook["headers"])
    assert not verify_skyvern_webhook("key-b", hook["body"], hook["headers"])  # the key matters
    assert not verify_skyvern_webhook("key-a", hook["body"] + b" ", hook["headers"])  # so does every byte
    payload = json.loads(hook["body"])
    assert (payload["status"], payload["run_id"], payload["workflow_run_id"]) == (status, run_id, run_id)
    assert hook["body"].decode() == json.dumps(payload, separators=(",", ":"), ensure_ascii=False)  # compact
    assert hook["headers"]["content-type"] == "application/json"
    assert abs(int(hook["headers"]["x-skyvern-timestamp"]) - time.time()) < 60
    assert payload["webhook_failure_reason"] is None  # not known when the body is signed
    client.app.state.wflint.run_worker.wait(run_id, 20)
    status_reply = client.get(f"/api/v1/workflows/runs/{run_id}", headers=A).json()
    assert status_reply["webhook_failure_reason"] == ""  # delivered


def test_a_canceled_run_sends_its_webhook(client, receiver):
    run_id = run(client, receiver.url + "/hook", delays={"first": 20})  # a cancel cuts it short
    deadline = time.monotonic() + 20
    while client.get(f"/v1/runs/{run_id}", headers=A).json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    client.post(f"/v1/runs/{run_id}/cancel", headers=A)
    hook = receiver.wait_for(1)[0]
    assert json.loads(hook["body"])["status"] == "canceled"
    assert verify_skyvern_webhook("key-a", hook["body"], hook["headers"])
    client.app.state.wflint.run_worker.wait(run_id, 20)
    time.sleep(0.2)
    assert len(receiver.received) == 1  # the worker, stopping, sends no second one


def test_a_refusing_receiver_is_tried_three_times_with_the_same_signed_body(client, receiver, monkeypatch):
    monkeypatch.setattr(webhooks, "BASE_DELAY_SECONDS", 0.01)
    run_id = run(client, receiver.url + "/fail", STUBS["completed"])
    hooks = receiver.wait_for(3)
    assert len({(h["body"], h["headers"]["x-skyvern-signature"], h["headers"]["x-skyvern-timestamp"])
                for h in hooks}) == 1
    assert client.app.state.wflint.run_worker.wait(run_id, 20)
    reply = client.get(f"/api/v1/workflows/runs/{run_id}", headers=A).json()
    assert reply["status"] == "completed"  # delivery never changes the run's status
    assert reply["webhook_failure_reason"] == "Webhook failed with status code 500, error message: receiver says no"


def test_no_receiver_at_all_is_the_services_connect_error(client, monkeypatch):
    import socket

    monkeypatch.setattr(webhooks, "BASE_DELAY_SECONDS", 0.01)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    run_id = run(client, f"http://127.0.0.1:{closed}/x", STUBS["completed"])
    assert client.app.state.wflint.run_worker.wait(run_id, 20)
    reply = client.get(f"/api/v1/workflows/runs/{run_id}", headers=A).json()
    assert reply["webhook_failure_reason"] == ("Webhook delivery failed before receiving a response: "
                                               "ConnectError: All connection attempts failed")


class Replies:
    def __init__(self, *statuses, headers=None):
        self.statuses = list(statuses)
        self.calls = 0
        self.headers = headers or {}

    def __call__(self, hook, timeout):
        self.calls += 1
        status = self.statuses.pop(0)
        if status is None:
            raise webhooks.NoReply("ConnectError: All connection attempts failed")
        return status, "no", self.headers


def test_the_retry_schedule_is_the_services():
    slept: list[float] = []
    hook = webhooks.sign("http://127.0.0.1:1/x", {"a": 1.0}, "k")
    assert hook.body == '{"a":1}'  # whole floats are sent as integers
    assert webhooks.deliver(hook, sleep=slept.append, post=Replies(503, None, 200)) == ""
    assert len(slept) == 2 and 1 <= slept[0] < 2 and 2 <= slept[1] < 3
    for retried in (403, 408, 425, 429, 500, 599):
        post = Replies(retried, retried, retried)
        assert webhooks.deliver(hook, sleep=lambda s: None, post=post).startswith(f"Webhook failed with status code {retried}")
        assert post.calls == 3
    for final in (400, 401, 404, 410):
        post = Replies(final)
        assert webhooks.deliver(hook, sleep=lambda s: None, post=post) == \
            f"Webhook failed with status code {final}, error message: no"
        assert post.calls == 1
    slept.clear()
    webhooks.deliver(hook, sleep=slept.append, post=Replies(429, 429, 200, headers={"Retry-After": "120"}))
    assert slept == [30.0, 30.0]  # Retry-After is honoured up to 30 s


def test_a_run_without_a_webhook_url_sends_nothing(client, receiver):
    body = {"title": "no hook", "workflow_definition": {"parameters": [], "blocks": BLOCKS}}
    wpid = client.post("/v1/agents", json={"json_definition": body}, headers=A).json()["workflow_permanent_id"]
    run_id = client.post("/v1/run/agents", json={"agent_id": wpid}, headers=A).json()["run_id"]
    assert client.app.state.wflint.run_worker.wait(run_id, 20)
    assert client.get(f"/api/v1/workflows/runs/{run_id}", headers=A).json()["webhook_failure_reason"] is None
    assert receiver.received == []
