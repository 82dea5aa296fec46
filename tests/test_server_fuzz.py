"""Fuzzing the mock (issue 12), bounded for the default suite (about 10 s);
``WFLINT_FUZZ_LONG=1 pytest tests/test_server_fuzz.py`` runs the long profile (about 10x the
examples, and schemathesis on create and update too: tens of minutes).

* hypothesis: for any request body, create and update answer a JSON response that is not a 5xx,
  and the store stays consistent (a version exists exactly for each 200, and listing works);
* schemathesis: every operation of the mock's own ``/openapi.json`` answers as documented.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from wflint.server.http.app import create_app
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
LONG = os.environ.get("WFLINT_FUZZ_LONG") == "1"
VALID = {"title": "t", "workflow_definition": {"parameters": [
    {"parameter_type": "workflow", "key": "url", "workflow_parameter_type": "string"}], "blocks": [
    {"block_type": "goto_url", "label": "open", "url": "{{ url }}"},
    {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "url",
     "loop_blocks": [{"label": "pause", "wait_sec": 2}]}]}}

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False),
                    st.text(max_size=20), st.sampled_from(["wait", "for_loop", "task", "{{ x", "%", "\x00"]))
json_values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12) | st.sampled_from(list(VALID) + [
        "blocks", "parameters", "block_type", "label", "loop_blocks", "json_definition", "yaml_definition"]),
        inner, max_size=4)), max_leaves=25)


@st.composite
def mutated_valid(draw):
    """A valid definition with one value somewhere replaced by anything."""
    doc = json.loads(json.dumps(VALID))
    paths, stack = [], [((), doc)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, dict):
            stack.extend((path + (k,), x) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((path + (i,), x) for i, x in enumerate(v))
        paths.append(path)
    path = draw(st.sampled_from([p for p in paths if p]))
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = draw(json_values)
    return doc


bodies = st.one_of(
    json_values,
    st.builds(lambda d: {"json_definition": d}, mutated_valid() | json_values),
    st.builds(lambda d: {"yaml_definition": json.dumps(d)}, mutated_valid()),
    st.builds(lambda t: {"yaml_definition": t}, st.text(max_size=60)),
)
raw_bodies = st.binary(max_size=200) | st.sampled_from([b"", b"{", b"[" * 600, b'{"a": NaN}', b'"\\ud800"'])


@pytest.fixture(scope="module")
def fuzzed():
    state = make_state()
    client = make_client(state)
    wpid = client.post("/v1/agents", json={"json_definition": VALID}, headers=A).json()["workflow_permanent_id"]
    return state, client, wpid, {"ok": 1}


def _check(state, client, wpid, counter, response) -> None:
    assert response.status_code < 500, response.text[:500]
    assert response.headers["content-type"].startswith("application/json")
    response.json()
    if response.status_code == 200:
        counter["ok"] += 1
    listed = client.get("/v1/agents", params={"page_size": 10_000}, headers=A)
    assert listed.status_code == 200
    versions = sum(len(state.store.versions("o_100000000000000000", w["workflow_permanent_id"])) for w in listed.json())
    assert versions == counter["ok"]  # a version exactly for each 200: nothing stored by a failure


@settings(max_examples=1000 if LONG else 120, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])
@given(body=bodies, update=st.booleans())
def test_any_json_body_gets_a_json_answer_and_a_consistent_store(fuzzed, body, update):
    state, client, wpid, counter = fuzzed
    path = f"/v1/agents/{wpid}" if update else "/v1/agents"
    _check(state, client, wpid, counter, client.post(path, json=body, headers=A))


@settings(max_examples=500 if LONG else 60, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])
@given(raw=raw_bodies, path=st.sampled_from(["/v1/agents", "/v1/scripts", "/api/v1/workflows"]))
def test_any_bytes_get_a_json_answer_and_a_consistent_store(fuzzed, raw, path):
    state, client, wpid, counter = fuzzed
    _check(state, client, wpid, counter, client.post(path, content=raw, headers={**A, "content-type": "application/json"}))


# --------------------------------------------------------------------------- schemathesis

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import CHECKS  # noqa: E402

_schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(state=make_state()))
#: create and update bodies: their schema (every block type, recursively) makes each generated
#: example cost seconds; the hypothesis tests above fuzz those bodies, the long profile both
_quick = _schema if LONG else _schema.exclude(method="POST", path_regex=r"^/v1/(agents|workflows)(/\{workflow_permanent_id\})?$")


@_quick.parametrize()
@settings(max_examples=100 if LONG else 10, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.generate])
def test_the_mock_answers_as_its_openapi_says(case):
    """Schema-valid and schema-violating requests alike: never a 5xx, only documented statuses,
    JSON bodies that match the documented schemas. (Not asserted: that every schema-valid
    request is accepted - the service refuses some by design, e.g. its save-time checks and
    only_saved_tasks with only_workflows, which JSON Schema cannot express - or that unknown
    query parameters are refused - the service ignores them.)"""
    response = case.call(headers=A)
    assert response.status_code < 500, response.text[:300]
    if response.status_code == 405:  # a path made other by its parameters (an empty id: /v1/agents/)
        assert case.method.upper() not in response.headers["allow"][0].split(", ")
        return
    if any("/" in str(value) for value in (case.path_parameters or {}).values()):
        # an id holding "/" (sent as %2F) is routed by its decoded path, as the service's server
        # routes it: GET /v1/agents/x%2Fversions is x's versions (a list), not a workflow
        assert response.headers["content-type"][0].startswith("application/json")
        return
    assert str(response.status_code) in case.operation.definition.raw["responses"], (response.status_code, response.text[:300])
    assert response.headers["content-type"][0].startswith("application/json")
    case.operation.validate_response(response)
