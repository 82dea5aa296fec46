"""The template layer: which strings are templates, how they parse, what they read, and where
an offset inside a string sits in the file."""

from __future__ import annotations

import pytest
from jinja2 import meta

from wflint.checks import template_sites as tpl
from wflint.checks import template_analysis as tp
from wflint.api import evaluate
from wflint.document.parse import parse
from wflint.workflow.unwrap import unwrap
from wflint.document.source import SourceFile


def workflow(text: str, path: str = "flow.yaml"):
    source = SourceFile(text, path)
    parsed = parse(source)
    return unwrap(source, parsed.root, parsed.format).workflows[0]


def plain(blocks, parameters=(), **definition):
    return evaluate({"title": "t", "workflow_definition": {"parameters": list(parameters), "blocks": blocks,
                                                            **definition}}).workflow


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize("text, message, lineno, at", [
    ("{{ x ", "unexpected end of template, expected 'end of print statement'.", 1, "{{ x "),
    ("a {{ x }} {{ y. }}", "expected name or number", 1, "}}"),
    ("{{ x | }}", "expected token 'name', got 'end of print statement'", 1, "}}"),
    ("hi {{ 'a }}", "unexpected char \"'\" at 6", 1, "'a }}"),
    ("{{ x }}\n{{ y + }}\nz", "unexpected 'end of print statement'", 2, "}}\nz"),
    ("{{ x\n  + }}", "unexpected 'end of print statement'", 2, "}}"),
    ("{{ x }", "unexpected '}'", 1, "}"),
    ("{# note", "Missing end of comment tag", 1, "{# note"),
    ("{% if x %}a", "Unexpected end of template. Jinja was looking for the following tags: 'elif' or "
     "'else' or 'endif'. The innermost block that needs to be closed is 'if'.", 1, "if x %}a"),
    ("ok\n{% endif %}", "Encountered unknown tag 'endif'.", 2, "endif %}"),
])
def test_syntax_errors_carry_jinjas_message_line_and_an_offset(text, message, lineno, at):
    problem = tp.analyze(text).error
    assert problem is not None
    assert (problem.message, problem.lineno) == (message, lineno)
    assert text[problem.offset:].startswith(at)
    assert text.count("\n", 0, problem.offset) + 1 == lineno


@pytest.mark.parametrize("text", ["plain text", "a { b } c", "price: {amount}", "}} {{ '{{' }}", "{{ a }}}"])
def test_strings_that_parse(text):
    assert tp.analyze(text).error is None


def test_reads_name_their_first_use_and_attributes():
    a = tp.analyze("Go to {{ start.url }} then {{ extract_output.items[0] }} {{ start.name }}")
    assert [(r.name, r.offset, r.attrs) for r in a.reads] == [
        ("start", 9, ("url", "name")), ("extract_output", 30, ("items",))]


def test_filters_tests_attributes_and_bound_names_are_not_reads():
    a = tp.analyze("{% set total = prices | sum %}{% for p in items if p is defined %}{{ p.cost | round }}"
                   "{{ loop.index }}{% endfor %}{{ total }}{{ range(2) }}{{ x | default(fallback) }}")
    assert {r.name for r in a.reads} == {"prices", "items", "x", "fallback"}


CORPUS = [
    "{% for i in xs %}{{ i }}{{ loop.index }}{% endfor %}{{ i }}",
    "{% set x = y %}{{ x }}{{ z }}",
    "{{ x }}{% set x = 1 %}{{ x }}",
    "{% for a, b in items if a > lim %}{{ b }}{% else %}{{ a }}{% endfor %}",
    "{% set ns = namespace(c=0) %}{% for r in rows %}{% set ns.c = ns.c + r %}{% endfor %}{{ ns.c }}",
    "{% if q %}{% set w = 1 %}{% else %}{% set w = 2 %}{% endif %}{{ w }}",
    "{% for r in rows %}{% set k = r %}{% endfor %}{{ k }}",
    "{% set blk %}{{ inner }}{% endset %}{{ blk }}",
    "{% macro m(a) %}{{ a }}{{ b }}{% endmacro %}{{ m(c) }}",
    "{% with a = b %}{{ a }}{{ c }}{% endwith %}",
    "{% for x in x %}{{ x }}{% endfor %}",
    "{% for row in rows %}{% for cell in row %}{{ cell }}{{ loop.depth }}{% endfor %}{{ cell }}{% endfor %}",
]


@pytest.mark.parametrize("text", CORPUS)
def test_reads_agree_with_jinjas_find_undeclared_variables(text):
    expected = meta.find_undeclared_variables(tp.ENV.parse(text))
    assert {r.name for r in tp.analyze(text).reads} == expected


@pytest.mark.parametrize("text", ["{{ a }}", "x {{ a.b.c }} y {{ d }}", "{{ a | upper }} {{ b|tojson|safe }}"])
def test_the_fast_path_agrees_with_the_parser(text):
    fast = tp._simple(text)
    assert fast is not None
    full = tp._parse(text)
    assert fast.reads == full.reads and fast.tags == full.tags and full.error is None


@pytest.mark.parametrize("text", ["{{ range }}", "{{ x }} {{ lipsum }}", "{{ dict.a }}", "{{ cycler | length }}"])
def test_every_reader_leaves_jinjas_globals_out(text):
    reads = tp.analyze(text).reads
    assert reads == tp._parse(text).reads
    assert [r.name for r in reads] == (["x"] if "x }}" in text else [])


def test_jinja_globals_are_the_service_environments():
    # spelt out in template_analysis so that reading them does not import Jinja2
    from jinja2.sandbox import SandboxedEnvironment

    assert tp.JINJA_GLOBALS == frozenset(SandboxedEnvironment().globals)
    assert tp.environment() is tp.ENV and isinstance(tp.ENV, SandboxedEnvironment)


def test_results_are_cached_per_string():
    text = "cached {{ value | default(other) }}"
    assert tp.analyze(text) is tp.analyze(text)


def test_tag_spans_cover_every_tag():
    text = "a {{ b }} {% if c %}d{% endif %} {# e #}"
    assert [(text[s:e], k) for s, e, k in tp.analyze(text).tags] == [
        ("{{ b }}", "variable"), ("{% if c %}", "block"), ("{% endif %}", "block"), ("{# e #}", "comment")]


# --------------------------------------------------------------------------- code comments


def test_comment_masking_blanks_python_comments_only():
    code = "x = 1  # {{ broken\ny = '{{ a }}#'  # {% if %}\nz = \"#\" + {{ b }}  # {# c\n"
    masked = tp.mask_python_comments(code)
    assert len(masked) == len(code) and masked.count("\n") == code.count("\n")
    assert masked.splitlines() == [
        "x = 1" + " " * len("  # {{ broken"),
        "y = '{{ a }}#'" + " " * len("  # {% if %}"),
        'z = "#" + {{ b }}' + " " * len("  # {# c"),
    ]
    assert tp.analyze(masked).error is None


def test_a_hash_inside_a_jinja_tag_or_a_triple_quoted_string_is_no_comment():
    code = 'doc = """\n# not a comment {{ a }}\n"""\nv = {{ "#" ~ b }}'
    assert tp.mask_python_comments(code) == code


# --------------------------------------------------------------------------- sites


def test_sites_follow_the_models_templated_fields():
    wf = plain(
        [
            {"block_type": "http_request", "label": "call", "url": "{{ u }}", "headers": {"A": "{{ h }}"},
             "body": {"x": ["{{ leaf }}", 3]}, "timeout": 5},
            {"block_type": "send_email", "label": "mail", "sender": "a@b.c", "recipients": ["{{ to }}", "x@y.z"],
             "subject": "s", "body": "b"},
            {"block_type": "conditional", "label": "route",
             "branch_conditions": [{"criteria": {"expression": "{{ ok }}"}, "next_block_label": None},
                                   {"is_default": True}]},
            {"block_type": "code", "label": "c", "code": "x = 1  # {{"},
        ],
        workflow_system_prompt="Be brief, {{ name }}",
    )
    found = {s.path: (s.field, s.kind) for s in tpl.sites(wf)}
    base = ("workflow_definition", "blocks")
    assert found[base + (0, "url")] == ("url", "text")
    assert found[base + (0, "headers", "A")] == ("headers", "values")
    assert found[base + (0, "body", "x", 0)] == ("body", "leaves")
    assert found[base + (1, "recipients", 0)] == ("recipients", "text")
    assert found[base + (2, "branch_conditions", 0, "criteria", "expression")] == ("expression", "text")
    assert found[base + (3, "code")] == ("code", "code")
    assert found[("workflow_definition", "workflow_system_prompt")] == ("workflow_system_prompt", "text")
    assert base + (0, "label") not in found and base + (0, "body", "x", 1) not in found
    code = next(s for s in tpl.sites(wf) if s.kind == "code")
    assert code.value == "x = 1  # {{" and code.text == "x = 1" + " " * 6


def test_loop_scope():
    wf = plain([
        {"block_type": "for_loop", "label": "each", "loop_variable_reference": "{{ rows }}",
         "loop_blocks": [{"block_type": "goto_url", "label": "go", "url": "{{ current_item }}"}]},
        {"block_type": "while_loop", "label": "again", "condition": {"expression": "{{ current_index < 3 }}"},
         "loop_blocks": [{"block_type": "wait", "label": "w", "wait_sec": 1}]},
        {"block_type": "goto_url", "label": "after", "url": "{{ x }}"},
    ])
    by_label = {s.block.label: s.loop_scope for s in tpl.sites(wf)}
    assert by_label == {"each": False, "go": True, "again": True, "after": False}


def test_read_names_feed_wf213():
    wf = workflow(
        "title: t\nworkflow_definition:\n  parameters:\n"
        "    - {parameter_type: workflow, key: flag, workflow_parameter_type: boolean}\n"
        "    - {parameter_type: workflow, key: quoted, workflow_parameter_type: string}\n"
        "    - {parameter_type: workflow, key: broken, workflow_parameter_type: string}\n"
        "  blocks:\n"
        "    - {block_type: navigation, label: n, navigation_goal: \"{% if flag %}go{% endif %} {{ 'quoted' }}\"}\n"
        "    - {block_type: goto_url, label: g, url: \"{{ broken }\"}\n"
    )
    names = tpl.read_names(wf)
    assert "flag" in names and "quoted" not in names and "broken" in names
    from wflint.rules import wf213_unused_parameter as wf213

    assert [d.message for d in wf213.check(wf)] == ["parameter 'quoted' is declared but never used"]


# --------------------------------------------------------------------------- positions


def _at(wf, site_field: str, offset: int):
    site = next(s for s in tpl.sites(wf) if s.field == site_field)
    pos = tpl.locate(wf, site, offset)
    return pos, wf.source.text[pos.offset:]


def test_locate_in_a_block_scalar():
    wf = workflow("title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n"
                  "    - block_type: text_prompt\n      label: p\n      prompt: |\n        one\n        two {{ x }}\n")
    pos, rest = _at(wf, "prompt", len("one\ntwo "))
    assert (pos.line, pos.col) == (9, 13) and rest.startswith("{{ x }}")


def test_locate_through_json_escapes():
    text = '{"title": "t", "workflow_definition": {"parameters": [], "blocks": [\n' \
           '  {"block_type": "text_prompt", "label": "p", "prompt": "a\\u00e9\\n\\tb {{ x }}"}]}}'
    wf = workflow(text, "flow.json")
    pos, rest = _at(wf, "prompt", len("a\u00e9\n\tb "))
    assert pos.line == 2 and rest.startswith("{{ x }}")


def test_locate_inside_an_embedded_yaml_definition():
    inner = "title: t\\nworkflow_definition:\\n  parameters: []\\n  blocks:\\n" \
            "    - {block_type: goto_url, label: g, url: 'https://x/{{ y }}'}\\n"
    wf = workflow('{"yaml_definition": "' + inner + '"}', "body.json")
    pos, rest = _at(wf, "url", len("https://x/"))
    assert pos.line == 1 and rest.startswith("{{ y }}")


def test_locate_without_source_falls_back_to_the_node():
    wf = plain([{"block_type": "goto_url", "label": "g", "url": "x {{ y }}"}])
    site = tpl.sites(wf)[0]
    assert tpl.locate(wf, site, 2) == wf.node(site.path).start
