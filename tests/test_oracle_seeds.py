"""The harness's own parts that need no release: real seeds are found in the forms the
service's repository writes them in, and the shape operators make the forms they name."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

ORACLE = Path(__file__).resolve().parent.parent / "tools" / "oracle"
sys.path.insert(0, str(ORACLE))

import harness  # noqa: E402
import real_seeds  # noqa: E402
import shapes  # noqa: E402
from generate import Case  # noqa: E402

REQUEST = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
    {"block_type": "goto_url", "label": "open", "url": "https://example.com"}]}}


def test_definitions_are_found_in_markdown_fences_and_python_literals():
    md = "Intro\n\n```yaml\ntitle: t\nworkflow_definition:\n  blocks:\n    - block_type: wait\n      label: w\n```\n" \
         "```yaml\n- block_type: wait\n  label: only_a_snippet\n```\n"
    assert [kind for kind, _ in real_seeds._from_markdown(md)] == ["yaml"]
    py = ('REQ = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [{"block_type": "wait", '
          '"label": "w", "wait_sec": 1}]}}\nTEXT = """\ntitle: t\nparameters: []\nblocks:\n  - block_type: wait\n'
          '    label: w\n"""\n')
    found = list(real_seeds._from_python(py))
    assert [kind for kind, _ in found] == ["json", "yaml"]
    assert json.loads(found[0][1])["title"] == "t"


@pytest.mark.parametrize("name", sorted(shapes.OPERATORS))
def test_each_shape_operator_makes_a_document_the_harness_can_send(name):
    import random

    kind, text = shapes.OPERATORS[name](json.loads(json.dumps(REQUEST)), random.Random(3))
    wire = harness.wire(Case("x", kind, text))
    assert set(wire) <= {"body", "raw"} and wire


def test_shapes_are_what_they_say():
    import random

    r = random.Random(1)
    flat = shapes._flat(REQUEST, r)[1]
    data = yaml.safe_load(flat)
    assert "workflow_definition" not in data and "blocks" in data
    nested = yaml.safe_load(shapes._nested(REQUEST, r)[1])
    assert list(nested.values())[0] == REQUEST


def test_mutated_cases_are_seeded_and_tagged():
    seeds = [Case("s", "json", json.dumps(REQUEST))]
    a = shapes.mutated(seeds, 5, 40, "m", "real")
    assert [c.text for c in a] == [c.text for c in shapes.mutated(seeds, 5, 40, "m", "real")]
    assert all("real" in c.tags for c in a) and {"shape", "field"} <= {c.tags[1] for c in a}


def test_only_internal_webhook_hosts_are_set_aside():
    assert harness.config_dependent(Case("x", "yaml", "webhook_callback_url: http://127.0.0.1/hook\n"))
    assert harness.config_dependent(Case("x", "yaml", "webhook_callback_url: mailto:ops@example.com\n")) is None
    assert harness.config_dependent(Case("x", "json", '{"browser_type": null}')) is None
