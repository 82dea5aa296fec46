"""The mock's run replies and webhooks against the real app's, recorded from skyvern 1.0.56 by
``tools/oracle/runs_capture.py`` (``tests/data/runs/real-1.0.56.json``; ``pytest -m engine``
re-records it live when the release is installed and compares again).

The recorded workflows use ``http_request`` and ``terminate`` blocks, which the real app runs
without a browser; the mock runs the same workflows with stubs that give the recorded block
results (its engine is not what is compared here: its own differential suite does that).
Ids, timestamps and the receiver's port are normalised away; everything else must be equal.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from run_fakes import FakeEngine, Receiver, verify_skyvern_webhook
from wflint.server.testing import make_client, make_state

REAL = Path(__file__).parent / "data" / "runs" / "real-1.0.56.json"
A = {"x-api-key": "key-a"}
ID = re.compile(r"\b(wr|wrb|wpid|o|w)_\d+\b")
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+$")


def load(path: Path = REAL) -> dict:
    data = json.loads(path.read_text())
    data["by_name"] = {c["name"]: c for c in data["calls"]}
    return data


def normal(value, base=None):
    """Ids → their prefix, timestamps → "<time>", the receiver's address → "<receiver>"."""
    if isinstance(value, dict):
        return {k: normal(v, base) for k, v in value.items()}
    if isinstance(value, list):
        return [normal(v, base) for v in value]
    if isinstance(value, str):
        if STAMP.match(value):
            return "<time>"
        if base:
            value = value.replace(base, "<receiver>")
        return ID.sub(lambda m: f"{m.group(1)}_<id>", value)
    return value


def keys_deep(value):
    """The key structure (names and order, recursively), without the values."""
    if isinstance(value, dict):
        return [(k, keys_deep(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [keys_deep(v) for v in value[:1]]
    return None


@pytest.fixture(scope="module")
def real():
    return load()


@pytest.fixture
def mock():
    receiver = Receiver()
    client = make_client(make_state(run_executor=FakeEngine()))
    yield client, receiver
    receiver.close()


PARAMS = [{"parameter_type": "workflow", "key": "need", "workflow_parameter_type": "string"},
          {"parameter_type": "workflow", "key": "n", "workflow_parameter_type": "integer", "default_value": 3}]


def run_like_real(client, receiver, title, block, stub, hook):
    body = {"title": title, "workflow_definition": {"parameters": PARAMS, "blocks": [block]}}
    wpid = client.post("/v1/workflows", json={"json_definition": body}, headers=A).json()["workflow_permanent_id"]
    client.put(f"/_mock/stubs/{wpid}", json={"blocks": {block["label"]: stub}}, headers=A)
    created = client.post("/v1/run/workflows", json={"workflow_id": wpid, "parameters": {"need": "x"},
                                                     "webhook_url": receiver.url + hook}, headers=A)
    run_id = created.json()["run_id"]
    assert client.app.state.wflint.run_worker.wait(run_id, 20)
    return wpid, run_id, created.json()


TERM = ("runs term", {"block_type": "terminate", "label": "stop", "reason": "n={{ n }} too big", "error_code": "TOO_BIG"},
        {"status": "terminated", "reason": "n=3 too big", "error_code": "TOO_BIG"}, "/hook_term")


def test_a_terminated_run_matches_the_real_app_in_every_reply(real, mock):
    client, receiver = mock
    wpid, run_id, created = run_like_real(client, receiver, *TERM)
    base_real, base_mock = real["base"], receiver.url
    calls = real["by_name"]
    assert normal(created, base_mock) == normal(calls["run_term"]["body"], base_real)
    for name, path in (("get_term", f"/v1/runs/{run_id}"), ("legacy_get_term", f"/api/v1/workflows/runs/{run_id}"),
                       ("legacy_get_wpid_term", f"/api/v1/workflows/{wpid}/runs/{run_id}")):
        mine = client.get(path, headers=A).json()
        assert normal(mine, base_mock) == normal(calls[name]["body"], base_real), name
    hook = receiver.wait_for(1)[0]
    real_hook = next(w for w in real["webhooks"] if w["path"] == "/hook_term")
    assert normal(json.loads(hook["body"]), base_mock) == normal(json.loads(real_hook["body"]), base_real)


def test_the_same_key_structure_as_the_real_app_for_completed_and_failed_runs(real, mock):
    client, receiver = mock
    calls = real["by_name"]
    ok = ("runs ok", {"block_type": "http_request", "label": "fetch", "method": "GET", "url": "http://x"},
          {"output": calls["get_ok"]["body"]["output"]["fetch_output"]}, "/hook_ok")
    fail = ("runs fail", {"block_type": "http_request", "label": "broken", "method": "GET", "url": "http://x"},
            {"fail": "HTTP request failed: Cannot connect to host 127.0.0.1:9 ssl:default [Connect call failed "
                     "('127.0.0.1', 9)]", "output": calls["get_fail"]["body"]["output"]["broken_output"]}, "/hook_fail")
    for case, name in ((ok, "ok"), (fail, "fail")):
        wpid, run_id, created = run_like_real(client, receiver, *case)
        assert keys_deep(created) == keys_deep(calls[f"run_{name}"]["body"])
        got = client.get(f"/v1/runs/{run_id}", headers=A).json()
        assert keys_deep(got) == keys_deep(calls[f"get_{name}"]["body"])
        assert (got["status"], got["failure_reason"]) == (calls[f"get_{name}"]["body"]["status"],
                                                          calls[f"get_{name}"]["body"]["failure_reason"])
        legacy = client.get(f"/api/v1/workflows/runs/{run_id}", headers=A).json()
        assert normal(legacy["failure_category"]) == normal(calls[f"legacy_get_{name}"]["body"]["failure_category"])
        assert keys_deep(legacy) == keys_deep(calls[f"legacy_get_{name}"]["body"])
        timeline = client.get(f"/v1/runs/{run_id}/timeline", headers=A).json()
        assert keys_deep(timeline) == keys_deep(calls[f"timeline_{name}"]["body"])
        mine, theirs = timeline[0]["block"], calls[f"timeline_{name}"]["body"][0]["block"]
        assert {k: mine[k] for k in ("label", "status", "failure_reason", "output")} == \
            {k: theirs[k] for k in ("label", "status", "failure_reason", "output")}
    hooks = receiver.wait_for(2)
    real_hooks = {w["path"]: json.loads(w["body"]) for w in real["webhooks"]}
    for hook in hooks:
        assert list(json.loads(hook["body"])) == list(real_hooks[hook["path"]]), hook["path"]


@pytest.mark.parametrize("name", ["missing_param", "bad_integer", "unknown_workflow", "no_workflow_id",
                                  "get_unknown_run", "timeline_unknown_run", "cancel_unknown_run", "legacy_get_unknown"])
def test_refusals_are_the_real_apps(real, mock, name):
    client, _ = mock
    call = real["by_name"][name]
    wpid = client.post("/v1/workflows", json={"json_definition": {"title": "runs ok", "workflow_definition": {
        "parameters": PARAMS, "blocks": [{"block_type": "wait", "label": "w", "wait_sec": 1}]}}},
        headers=A).json()["workflow_permanent_id"]
    real_wpid = real["wpids"]["ok"]
    body = json.loads(json.dumps(call["request"]).replace(real_wpid, wpid)) if call["request"] else None
    r = client.request(call["method"], call["path"].replace(real_wpid, wpid), json=body, headers=A)
    assert r.status_code == call["status"]
    assert json.loads(r.text.replace(wpid, real_wpid)) == call["body"]


def test_the_legacy_run_reply_and_a_cancel_of_a_finished_run(real, mock):
    client, receiver = mock
    wpid, run_id, _ = run_like_real(client, receiver, *TERM)
    calls = real["by_name"]
    r = client.post(f"/api/v1/workflows/{wpid}/run", json={"data": {"need": "y", "n": "5"}}, headers=A)
    assert keys_deep(r.json()) == keys_deep(calls["legacy_run"]["body"])
    cancel = client.post(f"/v1/runs/{run_id}/cancel", headers=A)
    assert (cancel.status_code, cancel.json()) == (calls["cancel_finished"]["status"], calls["cancel_finished"]["body"])
    assert client.get(f"/v1/runs/{run_id}", headers=A).json()["status"] == "terminated"
    # the service sends the webhook again, with webhook_failure_reason "" from the first delivery
    second = json.loads(receiver.wait_for(2)[1]["body"])
    assert second["status"] == "terminated" and second["webhook_failure_reason"] == ""


def test_the_recorded_webhooks_verify_and_retry_as_the_mock_does(real):
    """Facts the mock's webhook code relies on, checked on the real deliveries."""
    for hook in real["webhooks"]:
        assert verify_skyvern_webhook(real["api_key"], hook["body"].encode(), hook["headers"])
        assert json.dumps(json.loads(hook["body"]), separators=(",", ":"), ensure_ascii=False) == hook["body"]
    retried = [w for w in real["webhooks"] if w["path"] == "/fail500"]
    assert len(retried) == 3 and len({(w["body"], w["headers"]["x-skyvern-timestamp"]) for w in retried}) == 1
    gaps = [b["at"] - a["at"] for a, b in zip(retried, retried[1:])]
    assert 1 <= gaps[0] < 2.5 and 2 <= gaps[1] < 3.5
    calls = real["by_name"]
    assert calls["legacy_get_hook500"]["body"]["webhook_failure_reason"] == \
        "Webhook failed with status code 500, error message: receiver says no"
    assert calls["legacy_get_hook_closed"]["body"]["webhook_failure_reason"] == \
        "Webhook delivery failed before receiving a response: ConnectError: All connection attempts failed"


@pytest.mark.engine
def test_recording_again_from_the_installed_release_gives_the_same_shapes(tmp_path):
    """Re-records with the real app (needs the cached 1.0.56 environment) and checks that the
    stored reference still describes it: same calls, statuses and key structures."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "oracle"))
    import venvs

    if not venvs.installed("1.0.56"):
        pytest.skip("skyvern 1.0.56 is not installed in the oracle cache")
    out = tmp_path / "runs.json"
    done = venvs.run_in("1.0.56", "runs_capture.py", str(out), install=False, capture_output=True, text=True,
                        timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    fresh, stored = load(out), load()
    assert [(c["name"], c["status"]) for c in fresh["calls"]] == [(c["name"], c["status"]) for c in stored["calls"]]
    for name, call in stored["by_name"].items():
        assert keys_deep(fresh["by_name"][name]["body"]) == keys_deep(call["body"]), name
