"""Create, update, get, versions and delete against the in-process mock (reference §9.3-§9.9)."""

from __future__ import annotations

import re

import pytest

from wflint.server.testing import make_client
from wflint.server.workflows.versions import WORKFLOW_KEYS

A = {"x-api-key": "key-a"}
B = {"x-api-key": "key-b"}
WAIT = {"block_type": "wait", "label": "a", "wait_sec": 2}


def request(**extra):
    body = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [WAIT]}}
    body.update(extra)
    return body


@pytest.fixture
def client():
    return make_client()


def create(client, body=None, headers=A, **kw):
    r = client.post("/v1/agents", json={"json_definition": body or request()}, headers=headers, **kw)
    assert r.status_code == 200, r.text
    return r.json()


def update(client, wpid, body, headers=A):
    return client.post(f"/v1/agents/{wpid}", json={"json_definition": body}, headers=headers)


def test_create_returns_the_full_workflow_in_service_key_order(client):
    wf = create(client)
    expected = [k for k in WORKFLOW_KEYS if k != "effective_default_engine"]
    assert list(wf) == expected
    assert re.fullmatch(r"wpid_\d{18}", wf["workflow_permanent_id"])
    assert re.fullmatch(r"w_\d{18}", wf["workflow_id"])
    assert wf["version"] == 1 and wf["agent_id"] == wf["workflow_permanent_id"]
    assert wf["created_at"] == wf["modified_at"] and wf["deleted_at"] is None
    # the values the service fills in on create
    assert (wf["mask_secrets"], wf["enable_self_healing"], wf["code_version"]) == (False, False, 2)
    assert (wf["status"], wf["run_with"], wf["ai_fallback"], wf["cache_key"]) == ("published", "agent", True, "default")


def test_stored_wait_block_matches_the_reference_example(client):
    wf = create(client)
    block = wf["workflow_definition"]["blocks"][0]
    out = block["output_parameter"]
    assert list(block) == ["label", "next_block_label", "block_type", "output_parameter", "continue_on_failure",
                           "model", "disable_cache", "ignore_workflow_system_prompt", "next_loop_on_failure",
                           "wait_sec", "parameters"]
    assert out["key"] == "a_output" and out["description"] == "Output parameter for block a"
    assert out["workflow_id"] == wf["workflow_id"] and re.fullmatch(r"op_\d{18}", out["output_parameter_id"])
    assert block["wait_sec"] == 2 and block["parameters"] == []
    assert wf["workflow_definition"]["parameters"] == [out]
    assert wf["workflow_definition"]["version"] == 1 and "browser_settings" not in wf["workflow_definition"]


def test_update_writes_a_new_version_of_the_same_workflow(client):
    wf = create(client)
    r = update(client, wf["workflow_permanent_id"], request(title="second"))
    assert r.status_code == 200
    new = r.json()
    assert new["version"] == 2 and new["workflow_permanent_id"] == wf["workflow_permanent_id"]
    assert new["workflow_id"] != wf["workflow_id"] and new["title"] == "second"
    got = client.get(f"/v1/agents/{wf['workflow_permanent_id']}", headers=A).json()
    assert got["version"] == 2 and "effective_default_engine" in got
    old = client.get(f"/v1/agents/{wf['workflow_permanent_id']}", params={"version": 1}, headers=A).json()
    assert old["title"] == "t" and old["workflow_id"] == wf["workflow_id"]


def test_update_path_takes_a_wpid_of_the_callers_organization(client):
    wf = create(client)
    for bad in (wf["workflow_id"], "wpid_1"):
        r = update(client, bad, request())
        assert (r.status_code, r.json()) == (404, {"detail": f"Workflow not found. workflow_permanent_id={bad}"})
    r = update(client, wf["workflow_permanent_id"], request(), headers=B)
    assert r.status_code == 404


def test_update_inherits_and_resets_like_the_service(client):
    first = request(proxy_location="RESIDENTIAL", webhook_callback_url="example.com/hook", status="draft",
                    extra_http_headers={"h": "1"}, cdp_connect_headers={"Auth": "secret", "X": "y"},
                    max_elapsed_time_minutes=30, description="d", is_saved_task=True, code_version=1)
    first["workflow_definition"]["browser_settings"] = {"timezone_id": "Europe/Paris"}
    wf = create(client, first)
    assert wf["webhook_callback_url"] == "https://example.com/hook"
    assert wf["cdp_connect_headers"] == {"Auth": "***", "X": "***"}
    new = update(client, wf["workflow_permanent_id"], request(cdp_connect_headers={"Auth": "***", "X": "z"})).json()
    assert (new["proxy_location"], new["webhook_callback_url"], new["max_elapsed_time_minutes"]) == (
        "RESIDENTIAL", "https://example.com/hook", 30)
    assert (new["status"], new["description"], new["is_saved_task"], new["code_version"]) == ("published", None, False, 1)
    assert new["extra_http_headers"] == {"h": "1"}
    assert new["workflow_definition"]["browser_settings"] == {"timezone_id": "Europe/Paris"}
    cleared_body = request(extra_http_headers=None, webhook_callback_url=None)
    cleared_body["workflow_definition"]["browser_settings"] = None
    cleared = update(client, wf["workflow_permanent_id"], cleared_body).json()
    assert cleared["extra_http_headers"] == {} and cleared["webhook_callback_url"] is None
    assert "browser_settings" not in cleared["workflow_definition"]


def test_cdp_header_mask_keeps_the_stored_value(client):
    wf = create(client, request(cdp_connect_headers={"Auth": "secret"}))
    state = client.app.state.wflint
    wpid = wf["workflow_permanent_id"]
    update(client, wpid, request(cdp_connect_headers={"Auth": "***", "New": "v"}))
    stored = state.store.latest("o_100000000000000000", wpid, include_deleted=False)
    assert stored["cdp_connect_headers"] == {"Auth": "secret", "New": "v"}


def test_normalisations(client):
    wf = create(client, request(run_with="code_v2", max_screenshot_scrolls=5000, browser_profile_key="  ",
                                proxy_location={"country": "us", "subdivision": "US-CA"}))
    assert (wf["run_with"], wf["max_screenshot_scrolls"], wf["browser_profile_key"]) == ("code", 1000, None)
    assert wf["proxy_location"] == {"country": "US", "subdivision": "CA", "city": None, "isISP": False}
    assert create(client, request(proxy_location={"country": "ZZ"}))["proxy_location"] is None
    assert create(client, request(run_with="whatever"))["run_with"] == "agent"


def test_stored_parameters_and_blocks(client):
    body = request()
    body["workflow_definition"] = {
        "parameters": [
            {"parameter_type": "workflow", "key": "n", "workflow_parameter_type": "integer", "default_value": "12"},
            {"parameter_type": "context", "key": "c", "source_parameter_key": "n"},
            {"parameter_type": "credential", "key": "cred", "credential_id": "x", "fallback_credential_ids": ["x"]},
        ],
        "blocks": [
            {"block_type": "for_loop", "label": "loop", "loop_over_parameter_key": "n",
             "loop_blocks": [{"label": "inner", "wait_sec": 1}, {"label": "t", "url": "https://e.com"}]},
            {"block_type": "send_email", "label": "mail", "sender": "a@b", "recipients": ["c@d"], "subject": "s", "body": "b"},
            {"block_type": "action", "label": "act", "navigation_goal": "click", "parameter_keys": ["n", "loop_output"]},
        ],
    }
    d = create(client, body)["workflow_definition"]
    kinds = [(p["parameter_type"], p["key"]) for p in d["parameters"]]
    assert kinds == [("output", "loop_output"), ("output", "inner_output"), ("output", "t_output"),
                     ("output", "mail_output"), ("output", "act_output"), ("workflow", "n"), ("credential", "cred"),
                     ("context", "c"), ("aws_secret", "smtp_host"), ("aws_secret", "smtp_port"),
                     ("aws_secret", "smtp_username"), ("aws_secret", "smtp_password")]
    n = d["parameters"][5]
    assert n["default_value"] == 12 and re.fullmatch(r"wp_\d{18}", n["workflow_parameter_id"]) and n["created_at"].endswith("Z")
    assert d["parameters"][6]["fallback_credential_ids"] is None
    assert d["parameters"][7] == {"parameter_type": "context", "key": "c", "description": None, "source": n, "value": None}
    loop, mail, act = d["blocks"]
    assert loop["loop_over"] == n and [b["block_type"] for b in loop["loop_blocks"]] == ["wait", "task"]
    assert mail["smtp_host"]["aws_key"] == "SKYVERN_SMTP_HOST_AWS_SES" and mail["file_attachments"] == []
    assert mail["smtp_port"]["description"] == "Skyvern platform SMTP port"
    assert (act["task_type"], act["max_steps_per_run"], act["complete_verification"]) == ("action", 1, False)
    assert [p["key"] for p in act["parameters"]] == ["n", "loop_output"] and "engine_pinned" not in act


def test_conditional_branches_get_ids(client):
    body = request()
    body["workflow_definition"]["blocks"] = [
        {"block_type": "conditional", "label": "c", "branch_conditions": [
            {"criteria": {"expression": "{{ x }}"}, "next_block_label": "a"}, {"is_default": True}]}, WAIT]
    d = create(client, body)["workflow_definition"]
    assert d["version"] == 2
    first, default = d["blocks"][0]["branch_conditions"]
    assert re.fullmatch(r"[0-9a-f-]{36}", first["id"]) and first["criteria"] == {
        "criteria_type": "jinja2_template", "expression": "{{ x }}", "description": None}
    assert default["criteria"] is None and default["is_default"] is True


def test_versions_delete_and_revive(client):
    wf = create(client)
    wpid = wf["workflow_permanent_id"]
    update(client, wpid, request(title="v2"))
    versions = client.get(f"/v1/agents/{wpid}/versions", headers=A).json()
    assert [v["version"] for v in versions] == [2, 1]
    r = client.post(f"/v1/agents/{wpid}/delete", headers=A)
    assert (r.status_code, r.json()) == (200, None)
    assert client.get(f"/v1/agents/{wpid}", headers=A).json() == {"detail": f"Workflow not found. workflow_permanent_id={wpid}"}
    assert client.get("/v1/agents", headers=A).json() == []
    revived = update(client, wpid, request(title="back")).json()
    assert revived["version"] == 3
    assert [w["title"] for w in client.get("/v1/agents", headers=A).json()] == ["back"]


def test_get_errors(client):
    wpid = create(client)["workflow_permanent_id"]
    r = client.get(f"/v1/agents/{wpid}", params={"version": 7}, headers=A)
    assert r.json() == {"detail": f"Workflow not found. workflow_permanent_id={wpid}, version=7"}
    r = client.get(f"/v1/agents/{wpid}", params={"template": "true"}, headers=A)
    assert r.status_code == 400 and r.json()["detail"].startswith(f"Invalid template workflow permanent id: {wpid}.")
    r = client.get(f"/v1/agents/{wpid}", params={"version": "x"}, headers=A)
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["query", "version"]
    assert client.get(f"/v1/agents/{wpid}", headers=B).status_code == 404


def test_idempotent_create(client):
    h = {**A, "Idempotency-Key": "deploy-1"}
    first = create(client, headers=h)
    assert re.fullmatch(r"wpid_[0-9a-f]{64}", first["workflow_permanent_id"])
    again = create(client, request(title="ignored"), headers=h)
    assert again == first
    for bad in ("", "a b", "x" * 256, "é".encode()):
        r = client.post("/v1/agents", json={"json_definition": request()}, headers={**A, "Idempotency-Key": bad})
        assert (r.status_code, r.json()) == (422, {"detail": "Idempotency-Key must contain 1 to 255 visible ASCII bytes."})


def test_folders(client):
    r = client.post("/v1/agents", params={"folder_id": "fld_1"}, json={"json_definition": request()}, headers=A)
    assert (r.status_code, r.json()) == (404, {"detail": "Folder not found. folder_id=fld_1"})
    c = make_client(folders={"fld_1": "Deploys"})
    wf = c.post("/v1/agents", params={"folder_id": "fld_1"}, json={"json_definition": request(folder_id="fld_x")},
                headers=A).json()
    assert wf["folder_id"] == "fld_1"
    assert update(c, wf["workflow_permanent_id"], request(folder_id="fld_2")).json()["folder_id"] == "fld_1"


def test_trailing_slashes_and_aliases(client):
    wpid = create(client)["workflow_permanent_id"]
    assert client.post("/v1/workflows/", json={"json_definition": request()}, headers=A).status_code == 200
    assert client.post(f"/v1/workflows/{wpid}/", json={"json_definition": request()}, headers=A).json()["version"] == 2
    assert client.get(f"/v1/workflows/{wpid}/", headers=A).status_code == 200
    assert client.get(f"/api/v1/workflows/{wpid}", headers=A).status_code == 200
    assert client.get(f"/v1/agents/{wpid}/", headers=A).json() == {"detail": "Method Not Allowed"}
    assert client.get("/v1/agents/", headers=A).status_code == 405
    assert client.post(f"/api/v1/workflows/{wpid}", headers=A).status_code == 405
    assert client.delete(f"/api/v1/workflows/{wpid}", headers=A).json() is None


def test_legacy_raw_yaml_routes(client):
    text = "title: raw\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: my-w, wait_sec: 1}\n"
    wf = client.post("/api/v1/workflows", content=text, headers={**A, "content-type": "text/plain"}).json()
    assert wf["workflow_definition"]["blocks"][0]["label"] == "my_w"  # sanitized
    r = client.put(f"/api/v1/workflows/{wf['workflow_permanent_id']}", content=text, headers=A)
    assert r.status_code == 422 and "Block label 'my-w' is not a valid label" in r.json()["detail"]
    r = client.put(f"/api/v1/workflows/{wf['workflow_permanent_id']}", params={"expected_version": 5},
                   content=text.replace("my-w", "w"), headers=A)
    assert r.status_code == 409 and r.json()["detail"].startswith("Concurrent update detected")
