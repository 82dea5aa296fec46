"""List workflows: latest versions, order, paging, filters and search (reference §9.6)."""

from __future__ import annotations

import pytest

from wflint.server.testing import make_client

A = {"x-api-key": "key-a"}


def body(title, params=(), blocks=("a",), **extra):
    return {"json_definition": {"title": title, **extra, "workflow_definition": {
        "parameters": list(params), "blocks": [{"block_type": "wait", "label": b, "wait_sec": 1} for b in blocks]}}}


@pytest.fixture
def client():
    return make_client(folders={"fld_1": "Billing Team"})


def titles(client, **params):
    r = client.get("/v1/agents", params=params, headers=A)
    assert r.status_code == 200, r.text
    return [w["title"] for w in r.json()]


def test_latest_version_of_each_newest_first_with_originals(client):
    one = client.post("/v1/agents", json=body("one"), headers=A).json()
    client.post("/v1/agents", json=body("two"), headers=A)
    client.post(f"/v1/agents/{one['workflow_permanent_id']}", json=body("one v2"), headers=A)
    items = client.get("/v1/agents", headers=A).json()
    assert [w["title"] for w in items] == ["one v2", "two"]
    assert items[0]["version"] == 2 and items[0]["original_created_at"] == one["created_at"]
    assert "effective_default_engine" not in items[0]


def test_paging(client):
    for i in range(5):
        client.post("/v1/agents", json=body(f"w{i}"), headers=A)
    assert titles(client, page_size=2) == ["w4", "w3"]
    assert titles(client, page=3, page_size=2) == ["w0"]
    assert titles(client, page=4, page_size=2) == []
    assert len(titles(client)) == 5


@pytest.mark.parametrize("params, loc, kind", [
    ({"page": "0"}, ["query", "page"], "greater_than_equal"),
    ({"page_size": "0"}, ["query", "page_size"], "greater_than_equal"),
    ({"page": "x"}, ["query", "page"], "int_parsing"),
    ({"only_workflows": "maybe"}, ["query", "only_workflows"], "bool_parsing"),
    ({"status": ["draft", "gone"]}, ["query", "status", 1], "enum"),
])
def test_query_errors_are_the_list_form(client, params, loc, kind):
    r = client.get("/v1/agents", params=params, headers=A)
    item = r.json()["detail"][0]
    assert (r.status_code, item["loc"], item["type"]) == (422, loc, kind)
    if kind == "greater_than_equal":
        assert item["msg"] == "Input should be greater than or equal to 1" and item["ctx"] == {"ge": 1} and item["input"] == "0"
    if kind == "enum":
        assert item["msg"] == "Input should be 'published', 'draft', 'auto_generated', 'importing' or 'import_failed'"


def test_status_filter(client):
    for status in ("published", "draft", "auto_generated", "import_failed"):
        client.post("/v1/agents", json=body(status, status=status), headers=A)
    assert titles(client) == ["draft", "published"]
    assert titles(client, status=["auto_generated", "import_failed"]) == ["import_failed", "auto_generated"]


def test_saved_task_flags(client):
    client.post("/v1/agents", json=body("task", is_saved_task=True), headers=A)
    client.post("/v1/agents", json=body("flow"), headers=A)
    assert titles(client, only_saved_tasks="true") == ["task"]
    assert titles(client, only_workflows="yes") == ["flow"]
    r = client.get("/v1/agents", params={"only_saved_tasks": "1", "only_workflows": "on"}, headers=A)
    assert (r.status_code, r.json()) == (400, {"detail": "only_saved_tasks and only_workflows cannot be used together"})


def test_folder_filter(client):
    client.post("/v1/agents", params={"folder_id": "fld_1"}, json=body("in folder"), headers=A)
    client.post("/v1/agents", json=body("loose"), headers=A)
    assert titles(client, folder_id="fld_1") == ["in folder"]


def test_unified_search(client):
    param = {"parameter_type": "workflow", "key": "invoice_no", "workflow_parameter_type": "string",
             "description": "Number on the PDF", "default_value": "INV-77"}
    ctx = {"parameter_type": "context", "key": "hidden_ctx", "source_parameter_key": "invoice_no"}
    target = client.post("/v1/agents", json=body("Pay bills", params=[param, ctx], blocks=["fetch_step"]), headers=A).json()
    client.post("/v1/agents", params={"folder_id": "fld_1"}, json=body("Folder member"), headers=A)
    client.post("/v1/agents", json=body("Other"), headers=A)
    assert titles(client, search_key="PAY") == ["Pay bills"]
    assert titles(client, search_key="invoice") == ["Pay bills"]          # parameter key
    assert titles(client, search_key="on the pdf") == ["Pay bills"]       # description
    assert titles(client, search_key="inv-77") == ["Pay bills"]           # default value
    assert titles(client, search_key="fetch_step") == ["Pay bills"]       # output parameter of a block
    assert titles(client, search_key="hidden_ctx") == []                  # context parameters are not searched
    assert titles(client, search_key="billing") == ["Folder member"]      # folder title
    wpid = target["workflow_permanent_id"]
    assert titles(client, search_key=wpid[5:]) == ["Pay bills"]          # the permanent id, literally
    assert titles(client, search_key="P_y") == ["Pay bills"]             # _ is a wildcard
    assert len(titles(client, search_key="%")) == 3
    assert titles(client, title="pay") == ["Pay bills"]                   # deprecated title: same search
    assert titles(client, search_key="zzz", title="pay") == []            # search_key wins


def test_templates_and_tags(client):
    client.post("/v1/agents", json=body("x"), headers=A)
    assert titles(client, template="true") == []
    assert titles(client, only_templates="true") == []
    assert titles(client, tags="env:prod") == []
    r = client.get("/v1/agents", params={"template": "true", "tags": "a"}, headers=A)
    assert (r.status_code, r.json()) == (400, {"detail": "tags filter is not supported with template=true"})
