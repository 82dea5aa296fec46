"""Authentication and organization isolation (reference §9.2)."""

from __future__ import annotations

import pytest

from wflint.server.protocol.auth import ApiKeys, KeySpecError, parse_key_spec
from wflint.server.testing import make_client

BODY = {"json_definition": {"title": "t", "workflow_definition": {"parameters": [], "blocks": []}}}


@pytest.fixture
def client():
    return make_client()


@pytest.mark.parametrize("headers, detail", [
    ({}, "Invalid credentials"),
    ({"x-api-key": ""}, "Invalid credentials"),
    ({"x-api-key": "nope"}, "Could not validate credentials"),
    ({"Authorization": "Basic abc"}, "Invalid credentials"),
    ({"Authorization": "Bearer key-a"}, "Invalid authentication method"),
])
@pytest.mark.parametrize("method, path", [("GET", "/v1/agents"), ("POST", "/v1/agents"), ("GET", "/v1/agents/wpid_1"),
                                          ("POST", "/v1/scripts"), ("POST", "/v1/agents/wpid_1/delete")])
def test_refusals_are_403_with_the_service_detail(client, headers, detail, method, path):
    r = client.request(method, path, headers=headers, json=BODY)
    assert (r.status_code, r.json()) == (403, {"detail": detail})


def test_x_api_key_wins_over_authorization(client):
    r = client.get("/v1/agents", headers={"x-api-key": "key-a", "Authorization": "Basic x"})
    assert r.status_code == 200


def test_organizations_cannot_see_each_other(client):
    wf = client.post("/v1/agents", json=BODY, headers={"x-api-key": "key-a"}).json()
    assert wf["organization_id"] == "o_100000000000000000"
    wpid, b = wf["workflow_permanent_id"], {"x-api-key": "key-b"}
    assert client.get("/v1/agents", headers=b).json() == []
    assert client.get(f"/v1/agents/{wpid}", headers=b).status_code == 404
    assert client.get(f"/v1/agents/{wpid}/versions", headers=b).json() == []
    assert client.post(f"/v1/agents/{wpid}", json=BODY, headers=b).status_code == 404
    client.post(f"/v1/agents/{wpid}/delete", headers=b)
    assert client.get(f"/v1/agents/{wpid}", headers={"x-api-key": "key-a"}).status_code == 200


def test_key_specs():
    assert parse_key_spec("k=o_1") == ("k", "o_1")
    key, org = parse_key_spec("k")
    assert org.startswith("o_") and parse_key_spec("k") == (key, org)  # derived, stable
    with pytest.raises(KeySpecError):
        parse_key_spec("=o_1")
    keys = ApiKeys.resolve(["a=o_1"], environ={"WFLINT_API_KEYS": "b=o_2, c"})
    assert set(keys.orgs_by_key) == {"a", "b", "c"} and keys.generated is None
    generated = ApiKeys.resolve([], environ={})
    assert generated.generated in generated.orgs_by_key


def test_key_file(tmp_path):
    f = tmp_path / "keys"
    f.write_text("# team keys\nci=o_9\nlocal\n")
    assert ApiKeys.resolve([], f, environ={}).orgs_by_key["ci"] == "o_9"


def test_health_and_openapi_need_no_key(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    doc = client.get("/openapi.json").json()
    assert "/v1/agents/{workflow_permanent_id}" in doc["paths"] and "/v1/scripts" in doc["paths"]
    assert "WorkflowCreateYAMLRequest" in doc["components"]["schemas"] and "WorkflowResponse" in doc["components"]["schemas"]
