"""WF013: a request whose definition is not under ``workflow_definition`` is refused with the
service's status, checked as the request meant, and ``wflint fix`` wraps it."""

from __future__ import annotations

from pathlib import Path

import pytest

from wflint.api import check_text
from wflint.fix import fix_text

ROOT = Path(__file__).resolve().parent.parent
BAD = sorted((ROOT / "fixtures" / "rules" / "WF013").glob("bad_*[ln]"))


def codes(text: str, path: str) -> list[str]:
    return [d.code for d in check_text(text, path=path)]


@pytest.mark.parametrize("path", BAD, ids=[p.name for p in BAD])
def test_each_layout_is_refused_with_422_and_the_fix_wraps_it(path):
    text = path.read_text()
    diags = check_text(text, path=path.name)
    wrapper = [d for d in diags if d.code == "WF013"]
    assert len(wrapper) == 1 and wrapper[0].service.status == 422 and wrapper[0].severity == "error"
    fixed = fix_text(text, path.name)
    assert fixed.changed and "(WF013)" in fixed.changes[0]
    assert "WF013" not in codes(fixed.text, path.name)
    assert not [d for d in check_text(fixed.text, path=path.name) if d.service is not None]


def test_the_yaml_path_answer_names_the_missing_keys():
    flat = "title: t\nparameters: []\nblocks: []\n"
    assert check_text(flat, path="f.yaml")[0].service.detail == "workflow_definition: Field required"
    bare = "parameters: []\nblocks: []\n"
    assert check_text(bare, path="f.yaml")[0].service.detail == "title: Field required; workflow_definition: Field required"
    assert check_text('{"parameters": [], "blocks": []}', path="f.json")[0].service.order[0] == "A"


def test_the_definition_meant_is_checked_at_its_own_positions():
    text = "title: t\nparameters: []\nblocks:\n  - block_type: navigation\n    label: go\n"
    diags = check_text(text, path="f.yaml")
    assert [(d.code, d.line) for d in diags] == [("WF013", 1), ("WF101", 4)]


def test_a_missing_title_becomes_the_files_name_and_comments_are_kept():
    text = "# orders\nparameters: []\nblocks:\n  - block_type: wait  # settle\n    label: w\n    wait_sec: 1\n"
    fixed = fix_text(text, "flows/nightly_orders.yaml")
    assert fixed.text.startswith('# orders\ntitle: "nightly_orders"\nworkflow_definition:\n  parameters: []\n')
    assert "# settle" in fixed.text and "added the title 'nightly_orders'" in fixed.changes[1]
    assert [d for d in check_text(fixed.text, path="f.yaml") if d.severity == "error"] == []


def test_a_nested_request_beside_other_keys_is_written_out_whole():
    text = "workflow:\n  title: t\n  workflow_definition: {parameters: [], blocks: []}\nowner: ops\n"
    fixed = fix_text(text, "f.yaml")
    assert "WF013" not in codes(fixed.text, "f.yaml") and fixed.text.startswith("title: t\n")


@pytest.mark.parametrize("text", ["title: t\nworkflow_definition: {parameters: [], blocks: []}\n",
                                  "name: ci\non: push\n", "steps: []\n"])
def test_requests_and_other_documents_have_no_wrapper_to_fix(text):
    assert "WF013" not in codes(text, "f.yaml")
    assert "(WF013)" not in " ".join(fix_text(text, "f.yaml").changes)
