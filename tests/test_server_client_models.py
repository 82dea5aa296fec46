"""Every stored block and parameter type parses with the official client's reply models
(reference §11.3), so the client cannot tell the mock's replies from the service's."""

from __future__ import annotations

import pytest

from wflint import model as M
from wflint.model import types as t
from wflint.server.testing import make_client

client_types = pytest.importorskip("skyvern.client.types")
from pydantic import TypeAdapter  # noqa: E402

A = {"x-api-key": "key-a"}
#: the client's reply model lacks these three (§11.5); the service stores them all the same
CLIENT_UNKNOWN = {"data_export", "terminate", "web_search"}
#: values the service's own checks (stages D-G) need beyond the model's required fields
SERVICE_NEEDS = {
    "action": {"navigation_goal": "click"}, "validation": {"complete_criterion": "done"},
    "wait": {"wait_sec": 1}, "for_loop": {"loop_variable_reference": "{{ items }}"},
    "send_email": {"sender": "a@b.c"}, "conditional": {"branch_conditions": [{"is_default": True}]},
}


def sample(typ):
    if isinstance(typ, t.Str):
        return "x"
    if isinstance(typ, t.Enum):
        return typ.values[0]
    if isinstance(typ, t.Array):
        return [sample(typ.items)] if not isinstance(typ.items, t.Ref) else []
    if isinstance(typ, (t.FreeObject, t.StrMap)):
        return {}
    if isinstance(typ, t.Ref):
        obj = M.OBJECTS[typ.target]
        return {f.name: sample(f.type) for f in obj.fields if f.required}
    if isinstance(typ, t.Blocks):
        return []
    raise AssertionError(typ)


def block(tag):
    spec = M.BLOCK_TYPES[tag]
    data = {"block_type": tag, "label": f"b_{tag}"}
    data.update({f.name: sample(f.type) for f in spec.fields if f.required})
    data.update(SERVICE_NEEDS.get(tag, {}))
    return data


PARAMETERS = [
    {"parameter_type": tag, "key": f"p_{tag}", **{f.name: sample(f.type) for f in spec.fields if f.required and f.name != "key"}}
    for tag, spec in M.PARAMETER_TYPES.items()
    if tag not in ("output", "context", "credential", "bitwarden_login_credential")
] + [{"parameter_type": "bitwarden_login_credential", "key": "p_blc", "bitwarden_item_id": "item",
      **{f"bitwarden_{k}_aws_secret_key": "x" for k in ("client_id", "client_secret", "master_password")}},
     {"parameter_type": "credential", "key": "p_credential", "credential_id": "cred_1"},
     {"parameter_type": "context", "key": "p_context", "source_parameter_key": "p_workflow"}]


@pytest.mark.parametrize("tag", [tag for tag in M.BLOCK_TYPES if tag not in CLIENT_UNKNOWN])
def test_each_block_type_parses_with_the_client(tag):
    body = {"title": tag, "workflow_definition": {"parameters": PARAMETERS, "blocks": [block(tag)]}}
    r = make_client().post("/v1/agents", json={"json_definition": body}, headers=A)
    assert r.status_code == 200, r.text
    wf = TypeAdapter(client_types.Workflow).validate_python(r.json())
    assert wf.workflow_definition.blocks[0].block_type == tag
    kinds = [p.parameter_type for p in wf.workflow_definition.parameters]
    assert kinds.count("output") == 1 and "context" in kinds and "bitwarden_sensitive_information" in kinds


@pytest.mark.parametrize("tag", sorted(CLIENT_UNKNOWN))
def test_the_three_newer_types_are_stored_even_though_the_client_cannot_read_them(tag):
    body = {"title": tag, "workflow_definition": {"parameters": [], "blocks": [block(tag)]}}
    r = make_client().post("/v1/agents", json={"json_definition": body}, headers=A)
    assert r.status_code == 200, r.text
    assert r.json()["workflow_definition"]["blocks"][0]["block_type"] == tag
