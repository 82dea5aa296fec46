"""The places `wflint mcp` gives an agent: JSON paths and pointers found from character
offsets (in YAML, in JSON, inside an update body's yaml_definition string), and fixes read back
as data changes. In process: the tools' end-to-end tests are in test_mcp.py."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp")
from wflint.document.parse import parse  # noqa: E402
from wflint.document.source import SourceFile  # noqa: E402
from wflint.mcp import tools  # noqa: E402
from wflint.mcp.json_paths import json_path, json_pointer, place_at  # noqa: E402


def test_paths_quote_keys_that_are_not_plain_names_and_pointers_escape():
    assert json_path(["workflow_definition", "blocks", 0, "label"]) == "$.workflow_definition.blocks[0].label"
    assert json_path(["odd key", "a/b"]) == "$['odd key']['a/b']"
    assert json_pointer(["a/b", "c~d", 3]) == "/a~1b/c~0d/3"
    assert json_path([]) == "$" and json_pointer([]) == ""


def test_an_offset_in_a_key_is_the_member_at_its_key():
    text = "a:\n  - b: 1\n    c: [x, y]\n"
    root = parse(SourceFile(text, "f.yaml")).root
    at_key = place_at(root, text.index("c:"))
    assert at_key.steps == ["a", 0, "c"] and at_key.in_key
    in_value = place_at(root, text.index("y]"))
    assert in_value.steps == ["a", 0, "c", 1] and not in_value.in_key


def test_check_finds_json_paths_in_json_and_inside_a_yaml_definition_string():
    request = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "navigation", "label": "go", "url": "https://e.com", "navigation_goal": "look",
         "max_retires": 2}]}}
    report = tools.check(text=json.dumps(request, indent=2))
    assert report["file"] == "workflow.json"
    misspelt = next(f for f in report["findings"] if f["code"] == "WF109")
    assert misspelt["json_path"] == "$.workflow_definition.blocks[0].max_retires" and misspelt["at_key"]

    inner = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a-b, wait_sec: 1}\n"
    report = tools.check(text=json.dumps({"yaml_definition": inner}), name="update.json")
    label = next(f for f in report["findings"] if f["code"] == "WF106")
    assert label["json_path"] == "$.yaml_definition.workflow_definition.blocks[0].label"
    # a fix inside the string changes the string: its new text is given whole
    change = label["fix"]["changes"][0]
    assert change["json_path"] == "$.yaml_definition" and change["value"] == inner.replace("a-b", "a_b")


def test_a_change_too_long_to_repeat_as_data_leaves_the_value_to_its_edits():
    from wflint.mcp.findings import MAX_VALUE_CHARS, described_fix

    text = "a:\n  short: x\n  long: " + "y" * MAX_VALUE_CHARS + "\n"
    source = SourceFile(text, "f.yaml")
    at_short, at_long = text.index("x\n"), text.index("yyy")
    fix = described_fix("t", "safe", [(at_short, at_short + 1, "z"), (at_long, at_long + 1, "w")], source)
    assert [e["start_offset"] for e in fix["edits"]] == [at_long, at_short]  # the last place first
    short, long = fix["changes"]
    assert short == {"op": "replace", "json_path": "$.a.short", "json_pointer": "/a/short", "value": "z"}
    assert long["json_path"] == "$.a.long" and long["value"] is None and long["value_omitted"]


def test_a_definition_outside_its_wrapper_gets_wflint_fixs_wrapping_as_its_fix():
    flat = "title: Flat\nparameters: []\nblocks:\n  - block_type: wait\n    label: pause\n    wait_sec: 1\n"
    report = tools.check(text=flat)
    (finding,) = report["findings"]
    assert finding["code"] == "WF013" and finding["fix"]["safety"] == "safe"
    wrapped = {"title": "Flat", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "wait", "label": "pause", "wait_sec": 1}]}}
    assert finding["fix"]["changes"] == [{"op": "replace", "json_path": "$", "json_pointer": "", "value": wrapped}]
    (edit,) = finding["fix"]["edits"]
    fixed = flat[: edit["start_offset"]] + edit["new_text"] + flat[edit["end_offset"]:]
    assert tools.check(text=fixed)["clean"] and fixed == tools.fix(text=flat)["text"]


def test_a_finding_about_a_whole_document_is_at_its_root():
    stored = ("workflow_permanent_id: wpid_1\nworkflow_id: w_1\ntitle: x\nworkflow_definition: {parameters: [], blocks: []}\n"
              "created_at: '2024-01-01T00:00:00'\nmodified_at: '2024-01-01T00:00:00'\nversion: 1\n")
    finding = next(f for f in tools.check(text=stored)["findings"] if f["code"] == "WF012")
    assert (finding["line"], finding["column"]) == (finding["end_line"], finding["end_column"]) == (1, 1)
    assert finding["json_path"] == "$" and not finding["at_key"]
    assert finding["fix"]["changes"][0]["json_path"] == "$"
