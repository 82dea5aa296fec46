"""Hostile requests to the mock (issue 12): each reproducer is refused with a clear 4xx within its
limit, stores nothing, and leaves later reads working."""

from __future__ import annotations

import base64
import json
import time

import pytest

from wflint.server.workflows import verdict as engine_bridge
from wflint.server.protocol.limits import ServerLimits
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
WAIT = {"block_type": "wait", "label": "a", "wait_sec": 1}


def body(blocks=None, **top):
    return {"json_definition": {"title": "t", "workflow_definition": {"parameters": [], "blocks": blocks or [WAIT]}, **top}}


def nested_loops(levels: int, leaf: dict = WAIT, tag: bool = True) -> dict:
    b = dict(leaf)
    for i in range(levels):
        b = {"label": f"l{i}", "loop_variable_reference": "x", "loop_blocks": [b]}
        if tag:
            b["block_type"] = "for_loop"
    b["block_type"] = "for_loop"
    return b


def stored(client) -> int:
    r = client.get("/v1/agents", params={"page_size": 1000}, headers=A)
    assert r.status_code == 200
    return len(r.json())


#: a bound whose failure means the blow-up is back (an alias bomb or a regular expression that
#: backtracks takes minutes), far above what a loaded CI machine needs for the linear path
BLOW_UP_SECONDS = 5.0


def timed(call):
    t = time.perf_counter()
    r = call()
    return r, time.perf_counter() - t


@pytest.fixture
def client():
    return make_client()


# --------------------------------------------------------------------------- search, loops


def test_search_key_of_wildcards_is_linear(client):
    long_title = body()
    long_title["json_definition"]["title"] = "x" * 200_000
    assert client.post("/v1/agents", json=long_title, headers=A).status_code == 200
    r, seconds = timed(lambda: client.get("/v1/agents", params={"search_key": "%" * 30 + "!"}, headers=A))
    assert (r.status_code, r.json()) == (200, [])
    assert seconds < BLOW_UP_SECONDS
    hit = client.get("/v1/agents", params={"search_key": "x%x_x"}, headers=A).json()
    assert len(hit) == 1  # the wildcards still mean what ILIKE means


@pytest.mark.parametrize("tag", [True, False], ids=["tagged", "untagged"])
def test_nested_loops_validate_in_linear_time(tag):
    client = make_client(limits=ServerLimits(loop_depth=100))
    r, t40 = timed(lambda: client.post("/v1/agents", json=body([nested_loops(40, tag=tag)]), headers=A))
    assert r.status_code == 200
    assert t40 < BLOW_UP_SECONDS  # it used to double per level: 18 levels took 12 s, so 40 would take days


def test_loops_past_loop_depth_are_refused_before_validation(client):
    for levels in (9, 50):
        r, seconds = timed(lambda: client.post("/v1/agents", json=body([nested_loops(levels, {"label": 5})]), headers=A))
        assert r.status_code == 422 and "loop-depth" in r.json()["detail"] and seconds < BLOW_UP_SECONDS
    r = client.post("/v1/agents", json={"yaml_definition": json.dumps(body([nested_loops(20)])["json_definition"])}, headers=A)
    assert r.status_code == 422 and "loop-depth" in r.json()["detail"]
    at_limit = client.post("/v1/agents", json=body([nested_loops(8, {"label": 5})]), headers=A)
    assert at_limit.status_code == 422 and isinstance(at_limit.json()["detail"], list)  # pydantic's own errors
    assert stored(client) == 0


def test_remembered_loop_items_give_pydantic_s_own_answers():
    from pydantic import ValidationError

    from wflint.server.workflows import models

    cases = [
        {"label": "a", "loop_blocks": [{"label": "b", "loop_blocks": [{"label": "w", "wait_sec": 5}],
                                        "condition": {"expression": "x"}, "complete_if_empty": "true"}]},
        {"label": "a", "loop_blocks": [{"label": "b", "loop_over_parameter_key": "p", "condition": {"expression": "x"},
                                        "loop_blocks": [{"block_type": "wait", "label": "w", "wait_sec": "7"}]}]},
        {"block_type": "while_loop", "label": "a", "loop_blocks": [nested_loops(4, {"label": 5}, tag=False)]},
    ]
    for case in cases:
        data = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [{**case, "block_type": case.get("block_type", "for_loop")}]}}

        def outcome(run):
            try:
                return run().model_dump(mode="json")
            except ValidationError as exc:
                return exc.errors(include_url=False)

        plain = outcome(lambda: models.request_class().model_validate(data))  # no memory
        assert outcome(lambda: models.validate_yaml_path(data)) == plain


# --------------------------------------------------------------------------- YAML


def alias_bomb(levels: int) -> str:
    lines = ["title: t", "workflow_definition: {parameters: [], blocks: []}", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "\n".join(lines)


@pytest.mark.parametrize("yaml_text, limit", [
    (alias_bomb(7), "alias-nodes"),  # 600 bytes, 10^7 nodes
    ("big: &b " + "x" * 100_000 + "\nl: [" + ", ".join(["*b"] * 2000) + "]\n", "alias-chars"),
    ("a: &a [*a]\n", "recursive alias"),
    ('title: "\\ud800"\nworkflow_definition: {parameters: [], blocks: []}\n', "UTF-8"),  # found by the fuzz test
    ("x: " + "[" * 5000 + "]" * 5000, "'depth'"),
    ("x:\n" + "".join("  " * (i + 1) + "- \n" for i in range(1200)), "'depth'"),
])
def test_yaml_definitions_over_the_limits_are_refused_at_once(client, yaml_text, limit):
    r, seconds = timed(lambda: client.post("/v1/agents", json={"yaml_definition": yaml_text}, headers=A))
    assert r.status_code == 422 and limit in r.json()["detail"]
    assert seconds < BLOW_UP_SECONDS
    assert stored(client) == 0


# --------------------------------------------------------------------------- body size, text, numbers


def test_body_over_the_limit_is_413_before_it_is_read():
    client = make_client(limits=ServerLimits(body_bytes=1000))
    big = body()
    big["json_definition"]["title"] = "x" * 2000
    r = client.post("/v1/agents", json=big, headers=A)
    assert r.status_code == 413 and "body-bytes" in r.json()["detail"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(10):
            yield b" " * 500

    r = client.post("/v1/agents", content=chunks(), headers={**A, "content-type": "application/json"})
    assert r.status_code == 413
    assert stored(client) == 0


def test_a_lone_surrogate_is_refused_and_nothing_breaks_later(client):
    raw = json.dumps(body(description="PLACEHOLDER")).replace("PLACEHOLDER", "\\ud800")
    r = client.post("/v1/agents", content=raw, headers={**A, "content-type": "application/json"})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["body", "json_definition", "description"]
    assert stored(client) == 0
    pair = json.dumps(body(description="PLACEHOLDER")).replace("PLACEHOLDER", "\\ud83d\\ude00")  # a valid pair
    assert client.post("/v1/agents", content=pair, headers={**A, "content-type": "application/json"}).status_code == 200
    assert client.get("/v1/agents", headers=A).json()[0]["description"] == "\U0001F600"


def test_a_string_over_string_chars_is_refused(client):
    long = body()
    long["json_definition"]["title"] = "x" * (ServerLimits().string_chars + 1)
    r = client.post("/v1/agents", json=long, headers=A)
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "string_too_long"
    assert stored(client) == 0


@pytest.mark.parametrize("raw", [
    '{"json_definition": {"title": "t", "workflow_definition": {"parameters": [], "blocks": [{"block_type": "wait", "label": "a", "wait_sec": NaN}]}}}',
    '{"json_definition": {"title": "t", "workflow_definition": {"parameters": [{"parameter_type": "workflow", "key": "k", "workflow_parameter_type": "json", "default_value": Infinity}], "blocks": []}}}',
    '{"json_definition": {"title": "t", "workflow_definition": {"version": ' + "9" * 5000 + ', "parameters": [], "blocks": []}}}',
    '{"json_definition": {"title": "t", "x": ' + "[" * 1000 + "]" * 1000 + "}}",
], ids=["NaN", "Infinity", "5000-digit integer", "1000 deep"])
def test_json_the_service_could_not_answer_is_a_422(client, raw):
    r = client.post("/v1/agents", content=raw, headers={**A, "content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"][0]["type"] == "json_invalid"
    assert stored(client) == 0


def test_version_beyond_sqlite_integers_is_404(client):
    wpid = client.post("/v1/agents", json=body(), headers=A).json()["workflow_permanent_id"]
    r = client.get(f"/v1/agents/{wpid}", params={"version": str(2**64)}, headers=A)
    assert r.status_code == 404
    big = client.post(f"/v1/agents/{wpid}", json=body(), headers=A)
    assert big.status_code == 200 and big.json()["version"] == 2


def test_deep_jinja_and_deep_python_are_clear_refusals(client):
    r = client.post("/v1/agents", json=body(browser_profile_key="{{" + "(" * 1000 + "1" + ")" * 1000 + "}}"), headers=A)
    assert r.status_code == 422 and "browser_profile_key" in r.json()["detail"]
    source = ("x = " + "-" * 100_000 + "1\n").encode()
    r = client.post("/v1/scripts", json={"files": [{"path": "a.py", "content": base64.b64encode(source).decode()}]}, headers=A)
    assert r.status_code == 400 and "nests too deeply" in r.json()["detail"]
    assert stored(client) == 0


# --------------------------------------------------------------------------- time budget, 405


def test_over_the_time_budget_is_503_and_stores_nothing(monkeypatch):
    state = make_state(limits=ServerLimits(request_seconds=0.2))
    client = make_client(state)
    real = engine_bridge.evaluate

    def slow(*args, **kwargs):
        time.sleep(0.6)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine_bridge, "evaluate", slow)
    r = client.post("/v1/agents", json=body(), headers=A)
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    time.sleep(0.8)  # the abandoned thread has finished by now, and must not have written
    monkeypatch.setattr(engine_bridge, "evaluate", real)
    assert stored(client) == 0
    assert client.post("/v1/agents", json=body(), headers=A).status_code == 200


def test_405_lists_every_method_of_the_path(client):
    r = client.put("/v1/agents", headers=A)
    assert r.status_code == 405 and r.headers["allow"] == "POST, GET"
    assert client.delete("/v1/scripts", headers=A).headers["allow"] == "POST"
