"""Runs in the SQLite store: they survive a restart, a store written before runs existed opens
and gains them, unfinished runs resume, and a SIGKILL loses no acknowledged run or status."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from run_fakes import FakeEngine
from wflint.server.store.database import Store
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
BODY = {"title": "kept", "workflow_definition": {"parameters": [], "blocks": [
    {"block_type": "code", "label": "first", "code": "x = 1"}, {"block_type": "code", "label": "second", "code": "y = 1"}]}}
HERE = Path(__file__).resolve().parent


def test_runs_and_their_block_rows_survive_a_restart(tmp_path):
    db = str(tmp_path / "mock.sqlite")
    c = make_client(make_state(db_path=db, run_executor=FakeEngine()))
    wpid = c.post("/v1/agents", json={"json_definition": BODY}, headers=A).json()["workflow_permanent_id"]
    c.put(f"/_mock/stubs/{wpid}", json={"blocks": {"first": {"output": 5}}}, headers=A)
    run_id = c.post("/v1/run/agents", json={"agent_id": wpid}, headers=A).json()["run_id"]
    assert c.app.state.wflint.run_worker.wait(run_id, 20)
    before = (c.get(f"/v1/runs/{run_id}", headers=A).json(), c.get(f"/v1/runs/{run_id}/timeline", headers=A).json())
    c.app.state.wflint.store.close()

    again = make_client(make_state(db_path=db, run_executor=FakeEngine()))
    after = (again.get(f"/v1/runs/{run_id}", headers=A).json(),
             again.get(f"/v1/runs/{run_id}/timeline", headers=A).json())
    assert after == before and after[0]["output"]["first_output"] == 5
    assert again.get(f"/_mock/stubs/{wpid}", headers=A).json()["stubs"] == {"blocks": {"first": {"output": 5}}}


def test_a_store_from_before_runs_opens_and_gains_them(tmp_path):
    db = str(tmp_path / "old.sqlite")
    old = Store(db)  # the workflow tables only, as an older wflint wrote them
    tables = {r[0] for r in old._query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "runs" not in tables
    old.close()
    c = make_client(make_state(db_path=db, run_executor=FakeEngine()))
    wpid = c.post("/v1/agents", json={"json_definition": BODY}, headers=A).json()["workflow_permanent_id"]
    run_id = c.post("/v1/run/agents", json={"agent_id": wpid}, headers=A).json()["run_id"]
    assert c.app.state.wflint.run_worker.wait(run_id, 20)
    assert c.get(f"/v1/runs/{run_id}", headers=A).json()["status"] == "completed"


def test_an_unfinished_run_is_run_again_when_the_store_is_next_served(tmp_path):
    db = str(tmp_path / "mock.sqlite")
    c = make_client(make_state(db_path=db, run_executor=FakeEngine()))
    wpid = c.post("/v1/agents", json={"json_definition": BODY}, headers=A).json()["workflow_permanent_id"]
    c.put(f"/_mock/stubs/{wpid}", json={"delays": {"first": 600}}, headers=A)  # never finishes here
    run_id = c.post("/v1/run/agents", json={"agent_id": wpid}, headers=A).json()["run_id"]
    deadline = time.monotonic() + 20
    while c.get(f"/v1/runs/{run_id}", headers=A).json()["status"] != "running":
        assert time.monotonic() < deadline
        time.sleep(0.01)
    runs = c.app.state.wflint.runs
    runs.update(run_id, {"stubs": {}})  # the next process gets no delay
    engine = FakeEngine()
    again = make_client(make_state(db_path=db, run_executor=engine))
    assert again.app.state.wflint.run_worker.wait(run_id, 20)
    done = again.get(f"/v1/runs/{run_id}", headers=A).json()
    assert done["status"] == "completed" and len(engine.calls) == 1
    labels = [i["block"]["label"] for i in again.get(f"/v1/runs/{run_id}/timeline", headers=A).json()]
    assert labels == ["second", "first"]  # the rows of the interrupted attempt were replaced


def _serve(db: Path) -> tuple[subprocess.Popen, str, dict]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parent / "src")])}
    proc = subprocess.Popen([sys.executable, str(HERE / "run_fakes.py"), str(db), "0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    info = json.loads(proc.stdout.readline())
    base = f"http://127.0.0.1:{info['port']}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base, info
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the mock did not start")


def test_sigkill_during_runs_loses_no_acknowledged_run_or_status(tmp_path):
    db = tmp_path / "killed.sqlite"
    key = {"x-api-key": "kill-key"}
    proc, base, _ = _serve(db)
    seen: dict[str, str] = {}
    try:
        wpid = httpx.post(base + "/v1/agents", json={"json_definition": BODY}, headers=key).json()["workflow_permanent_id"]
        httpx.put(f"{base}/_mock/stubs/{wpid}", json={"delays": {"*": 0.3}}, headers=key)
        for _ in range(12):
            r = httpx.post(base + "/v1/run/agents", json={"agent_id": wpid}, headers=key)
            assert r.status_code == 200
            seen[r.json()["run_id"]] = "created"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not any(s in ("running", "completed") for s in seen.values()):
            for run_id in seen:
                seen[run_id] = httpx.get(f"{base}/v1/runs/{run_id}", headers=key).json()["status"]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert any(s in ("running", "completed") for s in seen.values())
    proc, base, info = _serve(db)
    try:
        assert set(info["resumed"]) <= set(seen)
        for run_id, status in seen.items():  # every acknowledged run exists, no status went back
            now = httpx.get(f"{base}/v1/runs/{run_id}", headers=key).json()
            assert now["run_id"] == run_id
            assert now["status"] == "completed" or run_id in info["resumed"], (run_id, status, now["status"])
            if status == "completed":
                assert now["status"] == "completed"
        deadline = time.monotonic() + 60
        pending = set(seen)
        while pending and time.monotonic() < deadline:
            pending = {r for r in pending
                       if httpx.get(f"{base}/v1/runs/{r}", headers=key).json()["status"] != "completed"}
            time.sleep(0.1)
        assert not pending  # the killed process's unfinished runs ran to the end in the next one
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_webhook_not_delivered_before_a_stop_is_sent_when_the_store_is_next_served(tmp_path):
    from run_fakes import Receiver, verify_skyvern_webhook

    db = str(tmp_path / "mock.sqlite")
    receiver = Receiver()
    try:
        c = make_client(make_state(db_path=db, run_executor=FakeEngine()))
        wpid = c.post("/v1/agents", json={"json_definition": BODY}, headers=A).json()["workflow_permanent_id"]
        run_id = c.post("/v1/run/agents", json={"agent_id": wpid, "webhook_url": receiver.url + "/h"},
                        headers=A).json()["run_id"]
        assert c.app.state.wflint.run_worker.wait(run_id, 20) and len(receiver.wait_for(1)) == 1
        c.app.state.wflint.runs.update(run_id, {"webhook_failure_reason": None})  # as if killed before recording
        make_client(make_state(db_path=db, run_executor=FakeEngine()))
        hooks = receiver.wait_for(2)
        assert len(hooks) == 2 and verify_skyvern_webhook("key-a", hooks[1]["body"], hooks[1]["headers"])
        assert json.loads(hooks[1]["body"])["status"] == "completed"
    finally:
        receiver.close()
