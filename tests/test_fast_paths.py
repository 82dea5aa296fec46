"""The speed work's shortcuts give exactly what the plain code they replaced gave.

Each fast path below stands in for a slower but obvious form (kept here as the reference):
a list walk of a Python tree for ``ast.walk``, a code block's tree parsed once per process
for parsing it per block, a find-then-match scan for one regular
expression over a whole file, a short file skipping the longest-string walk.
"""

from __future__ import annotations

import ast
import re
import textwrap

from hypothesis import given, settings, strategies as st

from wflint.document.python_nodes import nodes
from wflint.engine.semantics import error_code_raises
from wflint.rules import wf601_hardcoded_secret as wf601

#: the one expression ``_credential_shaped`` replaces
CREDENTIAL_START = re.compile(r"PRIVATE KEY|\b(?:AKIA|ASIA)[0-9A-Z]{16}|\bsk-|\bgh[pousr]_|github_pat_"
                              r"|\bxox[abposr]-|AIza|k_live_|\beyJ")

_PIECES = ["sk-", "task-", "ghp_", "high", "gho_", "ghs_", "AKIA", "ASIA", "0123456789ABCDEF", "Z", "xoxb-", "xox",
           "eyJ", "keyJ", "AIza", "k_live_", "github_pat_", "PRIVATE KEY", " ", "_", "-", "a", "é", "\n"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=8).map("".join))
def test_credential_scan_is_the_expression(text):
    assert wf601._credential_shaped(text) == bool(CREDENTIAL_START.search(text))


def test_credential_scan_finds_each_shape_mid_text():
    for shape in ("AKIAABCDEFGHIJKLMNOP", "sk-abc", "ghr_x", "xoxp-1", "eyJhb", "AIzaX", "rk_live_1", "github_pat_1",
                  "-----BEGIN PRIVATE KEY-----"):
        assert wf601._credential_shaped("goal: do it " + shape + " now")
    assert not wf601._credential_shaped("task-1 through high ASIAN eyes, skeyJ")


_CODE = ["raise ErrorCode('A', 'r')", "raise ErrorCode('A')", "raise ErrorCode", "raise x.ErrorCode('A','b')",
         "e = ErrorCode('A','b')", "raise ErrorCode(A, 'b')", "raise ErrorCode('A', reason='x')", "raise ValueError('x')",
         "if x:\n    raise ErrorCode('B', 'y')", "def f(a, *b, **c):\n    raise ErrorCode('C', 'z')",
         "raise ErrorCode('A','b') if x else ErrorCode('B','c')", "x = [i for i in y]",
         "raise ErrorCode('A', 'r'); raise ErrorCode('B','c')", "raise ErrorCode(b'x','y')",
         "try:\n    pass\nexcept E as err:\n    raise ErrorCode('E','f')", "raise", "match v:\n    case [a, *rest]:\n        pass"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_CODE), min_size=1, max_size=5).map("\n".join))
def test_python_nodes_walk_as_ast_walk(code):
    tree = ast.parse(textwrap.dedent(code))
    assert nodes(tree) == list(ast.walk(tree))
    # the code block rule hands over its walked tree; the answer is the one parsing gives
    assert error_code_raises(code, nodes(tree)) == error_code_raises(code)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_CODE + ["  x = 1", "def (", "y = x\0"]), min_size=1, max_size=4).map("\n".join))
def test_parsed_code_is_parsing_it_again(code):
    from wflint.rules import runtime

    parsed = runtime.parsed_code(code)
    try:
        fresh = ast.parse(textwrap.dedent(code))
    except (SyntaxError, ValueError):
        assert parsed is None
        return
    # the shared parse is the one each block made for itself, and is shared
    assert runtime.parsed_code(code) is parsed
    assert ast.dump(parsed.tree, include_attributes=True) == ast.dump(fresh, include_attributes=True)
    assert [ast.dump(n) for n in parsed.nodes] == [ast.dump(n) for n in ast.walk(fresh)]
    assert parsed.stored_names == runtime.stored_names(list(ast.walk(fresh)))


def test_error_code_raises_reads_the_statement():
    assert error_code_raises("raise ErrorCode('LOGIN', 'no')") == ([(1, 0, "LOGIN")], None)
    assert error_code_raises("raise ErrorCode('X')")[1] == ("ErrorCode requires exactly two positional arguments", 1)
    assert error_code_raises("x = 1") == ([], None)


_NAME_PIECES = ["a", "Z", "9", "_", "__", "-", "é", " ", "x1", "open", "page", ".", "ß"]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_NAME_PIECES), max_size=6).map("".join))
def test_sanitize_name_shortcut_is_the_rewrite(name):
    from wflint.workflow import sanitizer

    out = sanitizer._UNDERSCORES.sub("_", sanitizer._NOT_IDENT.sub("_", name)).strip("_")
    if out and out[0].isdigit():
        out = "_" + out
    assert sanitizer.sanitize_name(name, "fallback") == (out or "fallback")


@settings(max_examples=800, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=4).map("".join), max_size=5))
def test_joined_strings_hold_a_credential_start_when_one_string_does(strings):
    request = {"a": strings[:2], "b": {"c": strings[2:]}, "n": 3}
    assert wf601._credential_shaped(wf601._joined_strings(request)) == any(map(wf601._credential_shaped, strings))


_SCALARS = ["yes", "No", "on", "OFF", "~", "null", "010", "0x1F", "1e3", "-1E+3", ".5e1", "7:30", "1_000", "abc", "y",
            "'1e3'", '"no"', "12", "+12", "-0.5", ".inf", "3.0", "0o7", "2001-12-14", "true", "e3", "''"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_SCALARS), min_size=1, max_size=4))
def test_wf004_skips_only_scalars_yaml11_reads_as_written(values):
    from wflint.checks.yaml11 import yaml11_reading
    from wflint.document.parse import parse
    from wflint.document.source import SourceFile
    from wflint.checks.yaml11 import may_read_otherwise

    text = "".join(f"{v}: {w}\n" for v, w in zip(["k0", *values], values))
    root = parse(SourceFile(text, "f.yaml")).root
    for node in root.walk():
        if node.kind == "scalar" and yaml11_reading(node) is not None:
            assert may_read_otherwise(node), node.raw


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=3),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=2), inner, max_size=3),
                     max_leaves=12)


@settings(max_examples=400, deadline=None)
@given(_JSON)
def test_a_data_tree_holds_the_data(value):
    from wflint.document.data_tree import node_tree

    assert node_tree(value).to_data() == value


def _sites_walked_field_by_field(wf):
    """``template_sites.sites`` as it was written before its plain-string shortcut: every
    templated value through ``_strings``, the owner and loop scope worked out per string."""
    from wflint.checks import template_sites as ts

    by_path = {b.path: b for b in wf.all_blocks}
    any_loop_body = any(b.parent is not None for b in wf.all_blocks)
    out = []
    for path, data, obj in ts.objects(wf):
        for name, templated in ts._templated_fields(wf.release, obj):
            if name not in data:
                continue
            block = ts._owner(by_path, path)
            is_code = block is not None and block.tag == "code" and path == block.path and name == "code"
            for where, value in ts._strings(data[name], path + (name,), templated):
                text = ts.mask_python_comments(value) if is_code else value
                out.append((where, value, text, name, id(block), "code" if is_code else templated,
                            ts._loop_scope(block, path, any_loop_body), ts.analyze(text, wf.limits.template_depth)))
    return out


def _site_tuples(wf):
    from wflint.checks import template_sites as ts

    return [(s.path, s.value, s.text, s.field, id(s.block), s.kind, s.loop_scope, s.analysis) for s in ts.sites(wf)]


_TEMPLATED = st.one_of(st.none(), st.integers(0, 3), st.sampled_from(["plain", "{{ a }}", "# {{ x }}\nprint(1)", ""]),
                       st.lists(st.sampled_from(["to@x.io", "{{ b.c }}", 3]), max_size=2),
                       st.dictionaries(st.sampled_from(["k", "q"]), st.sampled_from(["{{ d }}", "v", 1]), max_size=2))
_BLOCK = st.fixed_dictionaries(
    {"block_type": st.sampled_from(["task", "code", "send_email", "http_request", "text_prompt", "for_loop"]),
     "label": st.sampled_from(["a", "b", "c"])},
    optional={"navigation_goal": _TEMPLATED, "code": _TEMPLATED, "recipients": _TEMPLATED, "body": _TEMPLATED,
              "headers": _TEMPLATED, "prompt": _TEMPLATED, "url": _TEMPLATED, "loop_over_parameter_key": _TEMPLATED})


@settings(max_examples=300, deadline=None)
@given(st.lists(_BLOCK, max_size=4), st.lists(_BLOCK, max_size=3))
def test_template_sites_shortcut_is_the_field_walk(blocks, body):
    from wflint.workflow import view

    if blocks and body:
        blocks[0] = {"block_type": "for_loop", "label": "loop", "loop_over_parameter_key": "p", "loop_blocks": body}
    request = {"title": "{{ t }}", "workflow_definition": {"parameters": [], "blocks": blocks,
                                                          "workflow_system_prompt": "{{ s }}"}}
    wf = view.build("f.json", "json", None, request)
    assert _site_tuples(wf) == _sites_walked_field_by_field(wf)


def test_template_sites_shortcut_on_the_fixtures():
    from pathlib import Path

    from wflint import api

    for path in sorted(Path(__file__).resolve().parent.parent.joinpath("fixtures").rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json"):
            continue
        views: list = []
        api._check_data(path.read_bytes(), str(path), api.Config(), None, False, views)
        for wf in views:
            assert _site_tuples(wf) == _sites_walked_field_by_field(wf), path


def test_computed_once_computes_once_and_keeps_the_value():
    from wflint.workflow.computed_once import computed_once

    class Counted:
        calls = 0

        @computed_once
        def value(self):
            """the doc"""
            Counted.calls += 1
            return [Counted.calls]

    a, b = Counted(), Counted()
    assert a.value is a.value and a.value == [1] and b.value == [2] and Counted.calls == 2
    assert Counted.value.__doc__ == "the doc" and vars(a) == {"value": [1]}
