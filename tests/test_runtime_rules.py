"""The run-time rules (WF7xx) and the near-miss test of WF109 beyond their fixtures: the
cases each rule must leave alone, and the severities that depend on the path or the value."""

from __future__ import annotations

import json

import pytest

from wflint.api import check_text
from wflint.checks.intent import near_misses, one_near_miss


def run(blocks, parameters=(), **definition) -> list:
    request = {"title": "t", "workflow_definition": {"parameters": list(parameters), "blocks": list(blocks), **definition}}
    return check_text(json.dumps(request), "f.json")


def found(diags, code):
    return [(d.severity, d.message) for d in diags if d.code == code]


def param(key, typ="string", default=None):
    return {"parameter_type": "workflow", "key": key, "workflow_parameter_type": typ, "default_value": default}


def code(label, text, **kw):
    return {"block_type": "code", "label": label, "code": text, **kw}


@pytest.mark.parametrize("word,known,expected", [
    ("navigaton_goal", ["navigation_goal", "url"], ["navigation_goal"]),
    ("loop_over", ["loop_over_parameter_key", "loop_blocks"], ["loop_over_parameter_key"]),
    ("blocks", ["loop_blocks", "label"], ["loop_blocks"]),
    ("url", ["url_parameter_key"], []),          # too short to be the start of a field
    ("owner", ["navigation_goal", "url"], []),
])
def test_near_misses(word, known, expected):
    assert near_misses(word, known) == expected


def test_one_near_miss_needs_a_clear_winner():
    assert one_near_miss("data_schem", ["data_schema", "url"]) == "data_schema"
    assert one_near_miss("title_x", ["title_a", "title_b"]) is None


def test_wf109_leaves_a_field_of_another_block_type_to_wf104():
    diags = run([{"block_type": "wait", "label": "w", "wait_sec": 1, "url": "https://x"}])
    assert not found(diags, "WF109") and found(diags, "WF104")


def test_wf701_leaves_values_taken_out_of_the_loop_output():
    loop = {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "xs",
            "loop_blocks": [code("body", "v = 1")]}
    ok = [loop, {"block_type": "text_prompt", "label": "p", "prompt": "{{ each_output[0][0].output_value | tojson }}"}]
    bad = [loop, {"block_type": "text_prompt", "label": "p", "prompt": "{{ each_output[0] | tojson }}"}]
    assert not found(run(ok, [param("xs", "json", [1])]), "WF701")
    assert [s for s, _ in found(run(bad, [param("xs", "json", [1])]), "WF701")] == ["error"]


def conditional(expression, criteria_type):
    return {"block_type": "conditional", "label": "c", "branch_conditions": [
        {"criteria": {"criteria_type": criteria_type, "expression": expression}, "next_block_label": "a"},
        {"is_default": True}], "next_block_label": "a"}


def test_wf702_both_directions_and_undeclared_prompts():
    assert [s for s, _ in found(run([conditional("{{ x }}", "prompt"), code("a", "y = 1")]), "WF702")] == ["warning"]
    assert not found(run([conditional("the page shows a login form", "prompt"), code("a", "y = 1")]), "WF702")
    undeclared = conditional("the page shows a login form", "prompt")
    del undeclared["branch_conditions"][0]["criteria"]["criteria_type"]
    assert not found(run([undeclared, code("a", "y = 1")]), "WF702")


def test_wf703_only_when_a_route_skips_the_block():
    reader = {"block_type": "text_prompt", "label": "r", "prompt": "{{ big_output.which }}"}
    branch_to_big = {"block_type": "conditional", "label": "c", "next_block_label": "r", "branch_conditions": [
        {"criteria": {"expression": "{{ x }}"}, "next_block_label": "big"}, {"is_default": True}]}
    diags = run([branch_to_big, code("big", "which = 1"), reader], [param("x")], version=2)
    assert [s for s, _ in found(diags, "WF703")] == ["warning"]
    # both branches pass through 'big': it has run whichever is taken
    both = {**branch_to_big, "branch_conditions": [
        {"criteria": {"expression": "{{ x }}"}, "next_block_label": "big"}, {"is_default": True, "next_block_label": "big"}]}
    assert not found(run([both, code("big", "which = 1", next_block_label="r"), reader], [param("x")], version=2), "WF703")
    guarded = {**reader, "prompt": "{{ big_output.which if big_output is defined else '-' }}"}
    assert not found(run([branch_to_big, code("big", "which = 1"), guarded], [param("x")], version=2), "WF703")


def test_wf704_leaves_names_the_code_binds_or_the_engine_gives():
    text = "amount = 2\nfor row in [1]:\n    total = amount + row\nresult = json.dumps(len([total]))"
    assert not found(run([code("c", text)], [param("amount", "integer", 1), param("row")]), "WF704")
    assert not found(run([code("c", "x = {{ amount }}")], [param("amount", "integer", 1)]), "WF704")


def test_wf705_shapes_the_engine_refuses():
    for text in ("raise ErrorCode(name, 'why')", "raise ErrorCode", "e = ErrorCode('A', 'b')\nraise e",
                 "raise ErrorCode(code='A', reasoning='b')"):
        [(severity, message)] = found(run([code("c", text, error_code_mapping={"A": "a"})]), "WF705")
        assert severity == "error" and "fails before it runs" in message, text


def test_wf706_leaves_strings_and_filtered_values():
    block = {"block_type": "http_request", "label": "h", "url": "https://x.example.com", "method": "POST",
             "body": {"a": "{{ name }}", "b": "{{ order | json }}", "c": "{{ order.id }}"}}
    assert not found(run([block], [param("name"), param("order", "json", {})]), "WF706")


def test_wf707_a_lone_json_filter_is_fine_elsewhere_too():
    block = {"block_type": "http_request", "label": "h", "url": "https://x.example.com",
             "headers": {"X-Order": "{{ order | json }}"}, "body": {"note": "id {{ order.id }}"}}
    assert not found(run([block], [param("order", "json", {})]), "WF707")


@pytest.mark.parametrize("expression,severity", [
    ("false", "warning"), ("{{ n }} < 3", "warning"), ("more pages", "error"), ("{{ n < 3 }}", None)])
def test_wf708_severity_follows_what_the_text_reads_as(expression, severity):
    loop = {"block_type": "while_loop", "label": "w", "condition": {"expression": expression},
            "loop_blocks": [code("b", "x = 1")]}
    got = [s for s, _ in found(run([loop], [param("n", "integer", 0)]), "WF708")]
    assert got == ([severity] if severity else [])


def test_wf708_prompt_conditions_are_asked_not_read():
    loop = {"block_type": "while_loop", "label": "w", "condition": {"criteria_type": "prompt", "expression": "more pages"},
            "loop_blocks": [code("b", "x = 1")]}
    assert not found(run([loop]), "WF708")


def test_wf709_is_a_warning_when_branches_decide_the_count():
    body = [code(f"s{i}", "x = 1") for i in range(49)] + [
        {"block_type": "conditional", "label": "c", "branch_conditions": [{"is_default": True}]}]
    loop = {"block_type": "for_loop", "label": "l", "loop_over_parameter_key": "xs", "loop_blocks": body}
    assert [s for s, _ in found(run([loop], [param("xs", "json", [1])]), "WF709")] == ["warning"]
    short = {**loop, "loop_blocks": body[:49]}
    assert not found(run([short], [param("xs", "json", [1])]), "WF709")


def test_wf710_a_loop_s_own_flag_applies_to_its_children():
    loop = {"block_type": "for_loop", "label": "l", "loop_over_parameter_key": "xs", "next_loop_on_failure": True,
            "loop_blocks": [code("b", "x = 1")]}
    assert not found(run([loop], [param("xs", "json", [1])]), "WF710")
