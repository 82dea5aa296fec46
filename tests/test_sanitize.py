"""The YAML-path sanitizer against the reference's worked example and its quirks (§8)."""

from __future__ import annotations

import pytest

from wflint.workflow.sanitizer import rewrite_refs, sanitize, sanitize_name


@pytest.mark.parametrize(
    "name, fallback, expected",
    [
        ("open-page", "block", "open_page"),
        ("second step", "block", "second_step"),
        ("1st", "block", "_1st"),
        ("---", "parameter", "parameter"),
        ("---", "block", "block"),
        ("State/Province", "parameter", "State_Province"),
        ("café", "parameter", "caf"),
        ("already_fine", "block", "already_fine"),
        ("a__b", "block", "a_b"),
    ],
)
def test_sanitize_name(name, fallback, expected):
    assert sanitize_name(name, fallback) == expected


def test_rewrite_refs_only_matches_direct_references():
    assert rewrite_refs("{{ my-url }}", "my-url", "my_url") == "{{ my_url }}"
    assert rewrite_refs("{{my-url|upper}}", "my-url", "my_url") == "{{my_url|upper}}"
    assert rewrite_refs("{{ my-url.x }}", "my-url", "my_url") == "{{ my_url.x }}"
    for untouched in ("{{ my-urlx }}", "{{ x | default(my-url) }}", "{% if my-url %}"):
        assert rewrite_refs(untouched, "my-url", "my_url") == untouched


def test_worked_example():
    request = {
        "title": "t",
        "workflow_definition": {
            "parameters": [
                {"parameter_type": "workflow", "key": "my-url", "workflow_parameter_type": "string", "default_value": "my-url"},
                {"parameter_type": "context", "key": "ctx-1", "source_parameter_key": "my-url"},
            ],
            "blocks": [
                {"block_type": "goto_url", "label": "open-page", "url": "{{ my-url }}/x", "next_block_label": "second step"},
                {"block_type": "task", "label": "second step", "navigation_goal": "use {{ open-page_output }}", "parameter_keys": ["my-url", "ctx-1"]},
            ],
        },
    }
    out = sanitize(request)
    d = out.request["workflow_definition"]
    assert [p["key"] for p in d["parameters"]] == ["my_url", "ctx_1"]
    assert d["parameters"][0]["default_value"] == "my_url"
    assert d["parameters"][1]["source_parameter_key"] == "my_url"
    assert d["blocks"][0]["label"] == "open_page"
    assert d["blocks"][0]["url"] == "{{ my_url }}/x"
    assert d["blocks"][0]["next_block_label"] == "second_step"
    assert d["blocks"][1]["label"] == "second_step"
    assert d["blocks"][1]["navigation_goal"] == "use {{ open_page_output }}"
    assert d["blocks"][1]["parameter_keys"] == ["my_url", "ctx_1"]
    assert out.label_map == {"open-page": "open_page", "second step": "second_step"}
    # the input is not modified
    assert request["workflow_definition"]["blocks"][0]["label"] == "open-page"


def test_duplicate_labels_renamed_and_references_repointed():
    request = {"workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "wait", "label": "a", "next_block_label": "b"},
        {"block_type": "wait", "label": "b", "next_block_label": "a"},
        {"block_type": "wait", "label": "a"},
    ]}}
    d = sanitize(request).request["workflow_definition"]
    assert [b["label"] for b in d["blocks"]] == ["a", "b", "a_2"]
    assert [b.get("next_block_label") for b in d["blocks"]] == ["b", "a_2", None]


def test_duplicate_keys_end_up_duplicated():
    request = {"workflow_definition": {"parameters": [
        {"parameter_type": "workflow", "key": "k", "workflow_parameter_type": "string"},
        {"parameter_type": "workflow", "key": "k", "workflow_parameter_type": "string"},
    ], "blocks": []}}
    d = sanitize(request).request["workflow_definition"]
    assert [p["key"] for p in d["parameters"]] == ["k_2", "k_2"]


def test_not_rewritten_fields():
    request = {"workflow_definition": {"parameters": [
        {"parameter_type": "workflow", "key": "my-list", "workflow_parameter_type": "json"},
    ], "blocks": [
        {"block_type": "conditional", "label": "c", "branch_conditions": [{"is_default": True, "next_block_label": "do-it"}]},
        {"block_type": "wait", "label": "do-it", "wait_sec": 1},
        {"block_type": "for_loop", "label": "l", "loop_over_parameter_key": "my-list", "loop_blocks": []},
    ]}}
    d = sanitize(request).request["workflow_definition"]
    assert d["blocks"][0]["branch_conditions"][0]["next_block_label"] == "do-it"
    assert d["blocks"][1]["label"] == "do_it"
    assert d["blocks"][2]["loop_over_parameter_key"] == "my-list"


def test_nothing_to_do_and_non_mapping_definition():
    assert not sanitize({"workflow_definition": {"parameters": [], "blocks": [{"label": "ok"}]}}).changed
    assert sanitize({"workflow_definition": "nope"}).request == {"workflow_definition": "nope"}


def test_error_code_mapping_substituted_once():
    request = {"workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "wait", "label": "a-b"}, {"block_type": "wait", "label": "a_b"}],
        "error_code_mapping": {"E1": "see {{ a-b_output }}"}}}
    d = sanitize(request).request["workflow_definition"]
    # a-b -> a_b, then the real a_b becomes a_b_2; the mapping gets one pass
    assert [b["label"] for b in d["blocks"]] == ["a_b", "a_b_2"]
    assert d["error_code_mapping"] == {"E1": "see {{ a_b_output }}"}
