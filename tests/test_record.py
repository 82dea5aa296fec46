"""``wflint record``: a run made by the mock (``wflint serve`` with its own engine, over HTTP) read
back through the run API, written as a test case, and replayed green by ``wflint test``."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import httpx
import pytest
import yaml
from click.testing import CliRunner

from run_fakes import ThreadServer
from wflint.cli import main

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "fixtures" / "simulate" / "tutorial"
KEY = "rec-key"
FINAL = {"completed", "failed", "terminated", "canceled", "timed_out"}


@pytest.fixture(scope="module")
def served():
    server = ThreadServer(keys=(f"{KEY}=o_rec",), fake_engine=False)  # runs on wflint's engine
    yield server.base
    server.stop()


def run_in(base: str, workflow: dict, stubs: dict, parameters: dict) -> str:
    headers = {"x-api-key": KEY}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        saved = client.post("/v1/agents", json={"json_definition": workflow})
        assert saved.status_code == 200, saved.text
        wpid = saved.json()["workflow_permanent_id"]
        assert client.put(f"/_mock/stubs/{wpid}", json=stubs).status_code == 200
        run_id = client.post("/v1/run/agents", json={"agent_id": wpid, "parameters": parameters}).json()["run_id"]
        deadline = time.monotonic() + 60
        while client.get(f"/v1/runs/{run_id}").json()["status"] not in FINAL:
            assert time.monotonic() < deadline, "the run did not finish"
            time.sleep(0.05)
    return run_id


def record(*args: str):
    return CliRunner().invoke(main, ["record", *args], catch_exceptions=False)


STUBS = {
    "secrets": {"portal_login": {"username": "bot@example.com", "password": "pw-not-recorded"},
                "crm_token": "tok-not-recorded"},
    "tasks": {"read_leads": {"status": "completed", "extracted_information": {"leads": [
        {"name": "Ada", "email": "ada@example.com", "score": 91},
        {"name": "Bob", "email": "bob@example.com", "score": 12},
        {"name": "Cy", "email": "cy@example.com", "score": 75}]}}},
    "http": [{"method": "POST", "url_matches": "crm", "times": 1, "status": 201, "body": {"id": 1}},
             {"method": "POST", "url_matches": "crm", "status": 409, "body": {"error": "duplicate"}}],
}


def test_a_run_of_the_mock_recorded_through_the_run_api_replays_green(served, tmp_path):
    workflow_file = tmp_path / "lead_sync.yaml"
    shutil.copy(TUTORIAL / "lead_sync.yaml", workflow_file)
    workflow = yaml.safe_load(workflow_file.read_text())
    # the second hot lead meets a 409: the loop fails, and the recording must say so too
    run_id = run_in(served, workflow, STUBS, {"min_score": 50})
    result = record(run_id, "--workflow", str(workflow_file), "--url", served, "--api-key", KEY)
    assert result.exit_code == 0, result.output
    assert "replayed: 1 passed" in result.output
    written = tmp_path / "lead_sync.test.yaml"
    text = written.read_text()
    assert "pw-not-recorded" not in text and "tok-not-recorded" not in text
    case = yaml.safe_load(text)["cases"][0]
    assert case["parameters"] == {"portal_url": "https://portal.example.com", "min_score": 50}  # as the run reports them
    assert case["secrets"] == {"portal_login": {"username": "RECORDED_SECRET_portal_login_username",
                                                "password": "RECORDED_SECRET_portal_login_password"},
                               "crm_token": "RECORDED_SECRET_crm_token"}
    assert [r["status"] for r in case["http"]] == [201, 409] and all(r["times"] == 1 for r in case["http"])
    assert case["tasks"]["read_leads"]["extracted_information"]["leads"][2]["name"] == "Cy"
    expect = case["expect"]
    assert expect["status"] == "failed" and "HTTP 409" in expect["failure_reason"]
    assert expect["path"] == ["sign_in", "read_leads", "each_lead", "is_hot", "push_to_crm", "is_hot", "note_cold",
                              "is_hot", "push_to_crm"]
    assert expect["blocks"]["push_to_crm[2]"] == "failed" and expect["blocks"]["note_cold"] == "completed"
    assert expect["outputs"] == {"note_cold_output": {"cold": "Bob"}}
    # and the file is an ordinary test file
    replay = CliRunner().invoke(main, ["test", str(tmp_path)], catch_exceptions=False)
    assert replay.exit_code == 0, replay.output


def test_record_refuses_to_overwrite_and_names_an_unknown_run(served, tmp_path):
    workflow_file = tmp_path / "lead_sync.yaml"
    shutil.copy(TUTORIAL / "lead_sync.yaml", workflow_file)
    missing = record("wr_0000", "--workflow", str(workflow_file), "--url", served, "--api-key", KEY)
    assert missing.exit_code == 2 and "/v1/runs/wr_0000: HTTP 404" in missing.output
    (tmp_path / "lead_sync.test.yaml").write_text("cases: []\n")
    exists = record("wr_0000", "--workflow", str(workflow_file), "--url", served)
    assert exists.exit_code == 2 and "exists" in exists.output


def test_a_url_the_service_masked_a_secret_in_is_recorded_as_a_pattern_that_replays(tmp_path):
    from wflint.simulate.record import case_from_run, test_file_text

    request = {"title": "t", "workflow_definition": {"version": 2, "parameters": [
        {"parameter_type": "aws_secret", "key": "api_key", "aws_key": "k"}], "blocks": [
        {"block_type": "http_request", "label": "get", "url": "https://api.example.com/v1?key={{ api_key }}"}]}}
    (tmp_path / "masked.yaml").write_text(yaml.safe_dump(request))
    run = {"status": "completed", "parameters": {}, "output": {}}
    timeline = [{"type": "block", "children": [], "block": {
        "label": "get", "block_type": "http_request", "status": "completed",
        "output": {"request_method": "GET", "request_url": "https://api.example.com/v1?key=*****",
                   "status_code": 200, "response_body": {"ok": True}, "response_headers": {}}}}]
    case = case_from_run(request, run, timeline, "masked")
    assert case["secrets"] == {"api_key": "RECORDED_SECRET_api_key"}
    assert case["http"][0]["url_matches"] == r"^https://api\.example\.com/v1\?key=.+$"
    (tmp_path / "masked.test.yaml").write_text(test_file_text(None, case))
    replay = CliRunner().invoke(main, ["test", str(tmp_path)], catch_exceptions=False)
    assert replay.exit_code == 0, replay.output
