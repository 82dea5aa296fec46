"""A definition exported from ``wflint serve`` through the official client (as
``skyvern workflow get --definition-file`` writes it: title, proxy_location and the stored
workflow_definition) is recognised as the stored form (WF012), converts back (``wflint fix``)
to a request that checks clean, and saving that request gives back the same stored
definition: blocks, parameters and settings, ids and timestamps aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from test_official_client import Server, skyvern_client  # noqa: F401  (skips without the client)
from wflint.api import check_text
from wflint.fix import fix_text

VALID = Path(__file__).resolve().parents[2] / "fixtures" / "valid"
#: values only the service writes, which differ between two saves of the same definition
GENERATED = {"workflow_id", "output_parameter_id", "workflow_parameter_id", "context_parameter_id",
             "aws_secret_parameter_id", "credential_parameter_id", "created_at", "modified_at", "deleted_at", "id",
             "workflow_permanent_id", "version", "organization_id"}


def _without_generated(value):
    if isinstance(value, dict):
        return {k: _without_generated(v) for k, v in value.items() if k not in GENERATED and not k.endswith("_parameter_id")}
    if isinstance(value, list):
        return [_without_generated(v) for v in value]
    return value


def _settings(doc: dict) -> dict:
    return {k: v for k, v in _without_generated(doc).items() if k != "workflow_definition"}


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.stop()


@pytest.mark.parametrize("path", sorted(VALID.glob("*.*")), ids=lambda p: p.name)
def test_exported_definition_converts_back_and_round_trips(server, path, tmp_path):
    import httpx

    import yaml

    text = path.read_text()
    data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    if {"json_definition", "yaml_definition"} & set(data):
        body = data  # an update body already
    else:
        body = {"json_definition": data} if path.suffix == ".json" else {"yaml_definition": text}
    headers = {"x-api-key": "e2e-key"}
    created = httpx.post(f"{server.base}/v1/workflows", json=body, headers=headers, timeout=30)
    assert created.status_code == 200, created.text
    wpid = created.json()["workflow_permanent_id"]

    # export through the official client, the way `skyvern workflow get --definition-file` does;
    # the client's models cannot read three newer block types, so the body is taken from the
    # client's own HTTP layer (its base URL, auth and the GET /v1/agents/{id} path it calls)
    client = server.client()
    got = client._client_wrapper.httpx_client.request(f"v1/agents/{wpid}", method="GET").json()
    stored = created.json()
    assert got["workflow_definition"] == stored["workflow_definition"]
    try:
        parsed = client.get_workflow(wpid)
    except Exception:  # noqa: BLE001 - a newer block type: checked above through the raw answer
        parsed = None
    if parsed is not None:
        assert [b.label for b in parsed.workflow_definition.blocks] == [b["label"] for b in got["workflow_definition"]["blocks"]]
    exported = {"title": got["title"], "workflow_definition": got["workflow_definition"]}
    if got.get("proxy_location") is not None:
        exported["proxy_location"] = got["proxy_location"]
    exported_text = json.dumps(exported, indent=2) + "\n"

    # checked as the service reads it: the one WF012 note, and the refusal of the output
    # parameters the full stored definition lists (422), with the service's status
    diags = check_text(exported_text, "exported.json")
    assert (diags[0].code, diags[0].severity, diags[0].service) == ("WF012", "warning", None)
    outputs = any(p.get("parameter_type") == "output" for p in got["workflow_definition"]["parameters"])
    assert any(d.code == "WF208" and d.service.status == 422 for d in diags) == outputs
    fixed = fix_text(exported_text, "exported.json")
    assert fixed.changed and not fixed.notes  # converted in place
    assert check_text(fixed.text, "exported.json") == []

    request = json.loads(fixed.text)
    saved = httpx.post(f"{server.base}/v1/workflows/{wpid}", json={"json_definition": request}, headers=headers, timeout=30)
    assert saved.status_code == 200, saved.text
    again = saved.json()
    assert _without_generated(again["workflow_definition"]) == _without_generated(stored["workflow_definition"])
    assert {k: v for k, v in _settings(again).items() if k in exported} == \
        {k: v for k, v in _settings(stored).items() if k in exported}


def test_fix_keeps_comments_of_a_yaml_stored_form(server, tmp_path):
    import httpx
    import yaml

    yaml_text = (VALID / "nightly_order_status_sync.yaml").read_text()
    created = httpx.post(f"{server.base}/v1/workflows", json={"yaml_definition": yaml_text},
                         headers={"x-api-key": "e2e-key"}, timeout=30).json()
    text = "# pulled with GET, kept in git\n" + yaml.safe_dump(created, sort_keys=False).replace(
        "workflow_definition:\n", "workflow_definition:  # the stored definition\n", 1)
    fixed = fix_text(text, "flow.yaml")
    assert fixed.changed and not fixed.notes
    assert fixed.text.startswith("# pulled with GET, kept in git\n")
    assert "workflow_definition:  # the stored definition\n" in fixed.text
    assert check_text(fixed.text, "flow.yaml") == []


EXPORTS = Path(__file__).resolve().parents[2] / "fixtures" / "exports"


@pytest.mark.parametrize("export", sorted(EXPORTS.glob("*.json")), ids=lambda p: p.name)
def test_skyvern_cli_exports_fix_to_requests_that_save_the_same(server, export):
    """The files the real `skyvern workflow get --definition-file` wrote (fixtures/exports):
    one WF012 warning each, fixed in place to a request that checks clean and that the mock
    stores exactly as it stores the fixture the export came from."""
    import httpx
    import yaml

    text = export.read_text()
    # read as the service reads it, each export saves (no error, no status); besides the one
    # WF012 note, a send_email whose SMTP parameters are stored as objects draws WF213: as
    # sent, the block would use the platform's SMTP slots, not the declared secrets
    diags = check_text(text, export.name)
    assert (diags[0].code, diags[0].severity) == ("WF012", "warning")
    assert {d.code for d in diags[1:]} <= {"WF213"} and not any(d.service for d in diags)
    fixed = fix_text(text, export.name)
    assert fixed.changed and not fixed.notes and check_text(fixed.text, export.name) == []

    original = next(VALID.glob(export.stem + ".*"))
    source = original.read_text()
    data = json.loads(source) if original.suffix == ".json" else yaml.safe_load(source)
    if {"json_definition", "yaml_definition"} & set(data):
        body = data
    else:
        body = {"json_definition": data} if original.suffix == ".json" else {"yaml_definition": source}
    headers = {"x-api-key": "e2e-key"}
    first = httpx.post(f"{server.base}/v1/workflows", json=body, headers=headers, timeout=30).json()
    again = httpx.post(f"{server.base}/v1/workflows", json={"json_definition": json.loads(fixed.text)},
                       headers=headers, timeout=30).json()
    assert _without_generated(again["workflow_definition"]) == _without_generated(first["workflow_definition"])
    # the request a person would write: about the size of the one it came from, no nulls or
    # defaults the service added
    request = _request_of(data)
    written = len(json.dumps(request, indent=2).splitlines())
    assert abs(len(fixed.text.splitlines()) - written) <= 0.2 * written, (len(fixed.text.splitlines()), written)
    assert fixed.text.count("null") <= json.dumps(request).count("null")


def _request_of(data: dict) -> dict:
    """The request an update body or file holds."""
    import yaml

    if isinstance(data.get("json_definition"), dict):
        return data["json_definition"]
    if isinstance(data.get("yaml_definition"), str):
        return yaml.safe_load(data["yaml_definition"])
    return data
