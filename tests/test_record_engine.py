"""``wflint record`` on runs made by the REAL 1.0.56 app (``pytest -m engine``): the app is served
offline as tools/engine does (``oracle.RealServer``: the embedded app behind a loopback front end,
with the browser, agent and LLM seams), a run is read back through its run API and written as a
test case, and ``wflint test`` replays it with the same path and statuses."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml
from click.testing import CliRunner

from wflint.cli import main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "engine"))

import oracle  # noqa: E402

pytestmark = pytest.mark.engine
FINAL = {"completed", "failed", "terminated", "canceled", "timed_out"}


def workflow(echo_url: str) -> dict:
    """Read leads, post each hot one to a CRM (the app's loopback echo server), note the cold ones,
    ask the LLM for a summary: every kind of outcome a recording must reproduce."""
    return {"title": "Record me", "workflow_definition": {"version": 2, "parameters": [
        {"parameter_type": "workflow", "key": "min_score", "workflow_parameter_type": "integer", "default_value": 70}],
        "blocks": [
            {"block_type": "extraction", "label": "read_leads", "url": "https://portal.example.com/leads",
             "data_extraction_goal": "List the leads", "next_block_label": "each_lead"},
            {"block_type": "for_loop", "label": "each_lead", "next_block_label": "summary",
             "loop_variable_reference": "read_leads_output.extracted_information.leads", "loop_blocks": [
                {"block_type": "conditional", "label": "is_hot", "branch_conditions": [
                    {"criteria": {"expression": "{{ current_value.score >= min_score }}"}, "next_block_label": "push"},
                    {"is_default": True, "next_block_label": "note_cold"}]},
                {"block_type": "http_request", "label": "push", "method": "POST", "url": echo_url + "/crm",
                 "body": {"name": "{{ current_value.name }}"}},
                {"block_type": "code", "label": "note_cold", "code": "cold = '{{ current_value.name }}'"}]},
            {"block_type": "text_prompt", "label": "summary", "prompt": "Summarise {{ each_lead_output | length }} leads",
             "json_schema": {"type": "object", "properties": {"text": {"type": "string"}}}},
        ]}}


def test_a_run_of_the_real_app_recorded_through_its_run_api_replays_with_the_same_path_and_statuses(tmp_path):
    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    with oracle.RealServer() as server, httpx.Client(base_url=server.url, timeout=60,
                                                     headers={"x-api-key": server.api_key}) as client:
        body = workflow(server.echo_url)
        workflow_file = tmp_path / "record_me.yaml"
        workflow_file.write_text(yaml.safe_dump(body, sort_keys=False))
        wpid = client.post("/v1/agents", json={"json_definition": body}).json()["workflow_permanent_id"]
        stubs = {"tasks": {"read_leads": {"status": "completed", "extracted_information": {"leads": [
                    {"name": "Ada", "score": 91}, {"name": "Bob", "score": 12}, {"name": "Cy", "score": 80}]}}},
                 "llm": {"summary": {"text": "three leads, two hot"}}}
        assert client.put(f"/_mock/stubs/{wpid}", json=stubs).status_code == 200
        run_id = client.post("/v1/run/agents", json={"workflow_id": wpid, "parameters": {"min_score": 50}}).json()["run_id"]
        deadline = time.monotonic() + 180
        while (real := client.get(f"/v1/runs/{run_id}").json())["status"] not in FINAL:
            assert time.monotonic() < deadline, "the real run did not finish"
            time.sleep(0.2)
        result = CliRunner().invoke(main, ["record", run_id, "--workflow", str(workflow_file), "--url", server.url,
                                           "--api-key", server.api_key], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "replayed: 1 passed" in result.output
    case = yaml.safe_load((tmp_path / "record_me.test.yaml").read_text())["cases"][0]
    assert case["expect"]["status"] == real["status"] == "completed"
    assert case["expect"]["path"] == ["read_leads", "each_lead", "is_hot", "push", "is_hot", "note_cold", "is_hot", "push",
                                      "summary"]
    assert [rule["url"] for rule in case["http"]] == [server.echo_url + "/crm"] * 2
    assert case["llm"] == {"summary": {"text": "three leads, two hot"}}
