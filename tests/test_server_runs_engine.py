"""Differential (``pytest -m engine``): every scenario of tools/engine run on the REAL 1.0.56
engine with a webhook to its loopback server, and the same workflow run in the mock with the
real engine's result fed to it (``ReplayEngine``), so what is compared is the mock's run
machinery: the run's status, reason, errors and output as ``GET /v1/runs/{id}`` shows them,
the block rows of its timeline, and the webhook body, against the real app's.

``WFLINT_RUNS_ENGINE_TRACES=FILE`` keeps the real traces in FILE and reuses them (while working
on the mock: the real engine takes about two minutes). The mock's own engine (``wflint simulate``) is compared with the real one by its own suite;
replaying keeps a disagreement there from hiding or faking one here.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from run_fakes import Receiver
from wflint.server.testing import make_client, make_state

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "engine"))

import oracle  # noqa: E402

pytestmark = pytest.mark.engine
A = {"x-api-key": "key-a"}
ID = re.compile(r"\b(?:wr|wrb|w|wpid|tsk|stp|o|a|op|wp|oat|tr|cr)_\d{12,}\b")
LOOPBACK = re.compile(r"http://127\.0\.0\.1:\d+")
#: what tools/engine drops from a trace (ids, timestamps), dropped from the mock's replies too
VOLATILE = {"task_id", "step_id", "workflow_run_id", "workflow_run_block_id", "workflow_id", "workflow_permanent_id",
            "organization_id", "output_parameter_id", "branch_id", "run_id", "agent_id", "agent_run_id",
            "task_screenshot_artifact_ids", "workflow_screenshot_artifact_ids", "downloaded_file_artifact_ids",
            "artifact_id", "browser_session_id", "retried_from_workflow_run_id", "retried_by_workflow_run_id",
            "created_at", "modified_at", "queued_at", "started_at", "finished_at", "next_attempt_at",
            "webhook_sent_at", "Date"}  # "Date": an HTTP response header of an http_request output
#: webhook keys the mock cannot know (DIFFERENCES.md, "Runs"): steps are counted by code blocks
#: and the agent, which stubs replace
NOT_COMPARED = {"total_steps", "step_count"}
#: differences DIFFERENCES.md ("Runs") lists, per scenario: the service's keyword classifier of
#: failure reasons (``forge/failure_classifier.py``, ~900 lines) is not modelled, so a reason it
#: recognises (an anti-bot block) gets the fallback category in the mock
KNOWN_DIFFERENT = {"engine_misc/anti_bot_no_retry": {"failure_category"}}


def normal(value):
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [normal(v) for v in value]
    if isinstance(value, str):
        return ID.sub("<id>", LOOPBACK.sub("<loopback>", value))
    return value


def by_key(value):
    """A loop output's ``output_parameter`` object reduced to its key, as the engine's normalised
    trace has it (the service, and the mock, report the whole stored parameter)."""
    if isinstance(value, dict):
        return {k: (v["key"] if k == "output_parameter" and isinstance(v, dict) else by_key(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [by_key(v) for v in value]
    return value


class ReplayEngine:
    """The executor contract, answering with the real engine's trace of the same case."""

    def __init__(self, traces):
        self.traces = traces

    def __call__(self, request, case, *, release="1.0.56", network=True, on_block=None):
        trace = {k: v for k, v in self.traces[case["name"]].items() if k != "loopback"}
        for row in trace.get("trace") or []:
            if on_block:
                on_block({**row, "status": "running"})
                on_block(dict(row))
        return trace


@pytest.fixture(scope="module")
def real():
    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    cases = oracle.scenario_cases(oracle.load_scenarios())
    for c in cases:
        c["case"] = {**c["case"], "run": {**(c["case"].get("run") or {}), "webhook_url": "$ECHO_URL/hook"}}
    cache = os.environ.get("WFLINT_RUNS_ENGINE_TRACES")  # a file to reuse while working on the mock
    if cache and Path(cache).exists():
        traces = json.loads(Path(cache).read_text())
    else:
        traces = oracle.run_real(cases, stderr=sys.stderr)
        if cache:
            Path(cache).write_text(json.dumps(traces))
    return cases, {t["name"]: t for t in traces}


def _mock_run(real, name):
    cases, traces = real
    case = next(c for c in cases if c["name"] == name)
    trace = traces[name]
    assert "error" not in trace, trace
    receiver = Receiver()
    client = make_client(make_state(run_executor=ReplayEngine(traces)))
    try:
        workflow = case["workflow"]
        body = {"json_definition": workflow} if isinstance(workflow, dict) and "workflow_definition" in workflow \
            else workflow if isinstance(workflow, dict) else {"yaml_definition": workflow}
        body = json.loads(json.dumps(body).replace("$ECHO_URL", "http://127.0.0.1:9"))
        r = client.post("/v1/agents", json=body, headers=A)
        assert r.status_code == 200, r.text
        wpid = r.json()["workflow_permanent_id"]
        stubs = {k: v for k, v in case["case"].items() if k in ("blocks", "tasks", "llm", "prompt_branches")}
        client.put(f"/_mock/stubs/{wpid}", json={**stubs, "name": name}, headers=A)
        started = client.post("/v1/run/agents", headers=A, json={
            "agent_id": wpid, "parameters": case["case"].get("parameters") or {}, "webhook_url": receiver.url + "/hook"})
        if "http_status" in trace:
            return trace, started, None, None, None
        run_id = started.json()["run_id"]
        assert client.app.state.wflint.run_worker.wait(run_id, 30)
        got = client.get(f"/v1/runs/{run_id}", headers=A).json()
        timeline = client.get(f"/v1/runs/{run_id}/timeline", headers=A).json()
        hooks = receiver.wait_for(1, 10)
        return trace, started, got, timeline, json.loads(hooks[0]["body"]) if hooks else None
    finally:
        receiver.close()


def _names():
    return sorted(c["name"] for c in oracle.scenario_cases(oracle.load_scenarios()))


def _flatten(items):
    for item in items:
        yield item["block"]
        yield from _flatten(item["children"])


@pytest.mark.parametrize("name", _names())
def test_the_mock_reports_a_run_as_the_real_app_does(real, name):
    trace, started, got, timeline, hook = _mock_run(real, name)
    if "http_status" in trace:  # refused before the run exists: the same status and message
        assert (started.status_code, normal(started.json())) == (trace["http_status"], normal(trace["body"]))
        return
    assert started.status_code == 200
    assert got["status"] == trace["status"] and got["failure_reason"] == trace["failure_reason"]
    assert normal(got["errors"]) == normal(trace["errors"])
    assert normal(by_key(got["output"])) == normal(trace["outputs"])
    rows = [(b["label"], b["status"]) for b in _flatten(timeline)]
    assert sorted(rows) == sorted((r["label"], r["status"]) for r in trace["trace"])
    real_hooks = [r for r in real[1][name].get("loopback") or [] if r.get("path") == "/hook"]
    assert len(real_hooks) == 1 and hook is not None
    # what reached the loopback receiver is the raw body: ids and timestamps go on both sides
    skip = NOT_COMPARED | KNOWN_DIFFERENT.get(name, set())
    theirs = {k: v for k, v in normal(real_hooks[0]["json"]).items() if k not in skip}
    mine = {k: v for k, v in normal(hook).items() if k not in skip}
    assert list(mine) == list(theirs)
    assert mine == theirs
