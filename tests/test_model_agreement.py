"""The linter's request-model verdict agrees with the mock server's pydantic models.

Two independent implementations read the one declarative model: the linter validates with
the generated JSON Schemas plus its model-level rules, the mock with generated pydantic models
plus the service's custom validators. Starting from realistic valid workflows, random single
mutations (a deleted field, a value of another type, an unknown tag ...) must be refused by both
or by neither. A disagreement is a bug in one of them, and the failing example says which.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wflint import api
from wflint.model import BLOCK_TYPES, PARAMETER_TYPES

pydantic = pytest.importorskip("pydantic")
models = pytest.importorskip("wflint.server.workflows.models")

ROOT = Path(__file__).resolve().parent.parent


def _bases() -> list[dict]:
    out = []
    for f in sorted((ROOT / "fixtures" / "valid").glob("*.json")):
        data = json.loads(f.read_text())
        if "workflow_definition" in data:
            out.append(data)
    return out


BASES = _bases()

VALUES = [None, "", "x", "my-label", 0, -1, 1, 5, 5.5, "5", "5.0", True, False, [], {}, ["a"], {"a": 1},
          "yes", 100000, 3000, "RESIDENTIAL", "skyvern-2.0", "jinja2_template"]


def _slots(doc: dict) -> list[tuple[dict, str]]:
    """Every (mapping, key) inside the definition where a mutation can land."""
    out = [(doc, k) for k in list(doc)]
    stack = [doc.get("workflow_definition")]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.extend((node, k) for k in list(node))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


@st.composite
def mutated(draw):
    doc = copy.deepcopy(draw(st.sampled_from(BASES)))
    slots = _slots(doc)
    container, key = draw(st.sampled_from(slots))
    kind = draw(st.sampled_from(["delete", "value", "value", "tag", "add"]))
    if kind == "delete":
        del container[key]
    elif kind == "value":
        container[key] = draw(st.sampled_from(VALUES))
    elif kind == "tag" and "block_type" in container:
        container["block_type"] = draw(st.sampled_from([*BLOCK_TYPES, "teleport"]))
    elif kind == "tag" and "parameter_type" in container:
        container["parameter_type"] = draw(st.sampled_from([*PARAMETER_TYPES, "azure_secret"]))
    else:
        container[draw(st.sampled_from(["label", "url", "wait_sec", "prompt", "engine", "is_default", "criteria"]))] = draw(
            st.sampled_from(VALUES)
        )
    return doc


def linter_refuses_model(doc: dict) -> bool:
    ev = api.evaluate(doc, mode="json")
    return any(v.order[:1] == ("A",) for v in ev.rejections)


def pydantic_refuses(doc: dict) -> bool:
    try:
        models.validate_json_path(models.request_class(), doc)
    except pydantic.ValidationError:
        return True
    return False


@pytest.mark.skipif(not BASES, reason="no valid JSON fixtures")
@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_linter_and_pydantic_agree_on_model_errors(doc):
    linter, service = linter_refuses_model(doc), pydantic_refuses(doc)
    if linter != service:
        detail = ""
        try:
            models.validate_json_path(models.request_class(), doc)
        except pydantic.ValidationError as exc:
            detail = str(exc)[:2000]
        lint = [(d.code, d.message) for d in api.evaluate(doc, mode="json").diagnostics if d.severity == "error"]
        pytest.fail(f"linter refuses={linter}, pydantic refuses={service}\nlint: {lint}\npydantic: {detail}\ndoc: {json.dumps(doc)[:3000]}")


def test_valid_bases_pass_both():
    for doc in BASES:
        assert not linter_refuses_model(doc)
        assert not pydantic_refuses(doc)


@pytest.mark.skipif(not BASES, reason="no valid JSON fixtures")
@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_every_rule_survives_mutations_on_the_yaml_path(doc):
    """No rule may crash on a half-broken request, whichever path it arrives by: a crash
    would surface as an internal error (exit 3) instead of findings."""
    ev = api.evaluate(doc, mode="yaml")
    assert all(d.code.startswith("WF") for d in ev.diagnostics)
