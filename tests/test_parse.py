"""parse() and parse_embedded(): the node tree, scalar resolution, and WF001/WF002/WF003/WF005."""

from __future__ import annotations

import datetime
import json
import math
import time

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wflint.document.nodes import Node
from wflint.document.parse import MAX_DEPTH, ParseResult, parse, parse_embedded
from wflint.document import yaml_parser as parse_module
from wflint.document.source import EmbeddedSource, SourceFile, decode
from wflint.document.string_offsets import value_offsets


def parse_yaml(text: str) -> ParseResult:
    return parse(SourceFile(text, "wf.yaml"))


def parse_json(text: str) -> ParseResult:
    return parse(SourceFile(text, "wf.json"))


def codes(result: ParseResult) -> list[str]:
    return [d.code for d in result.diagnostics]


def only(result: ParseResult, code: str):
    found = [d for d in result.diagnostics if d.code == code]
    assert len(found) == 1, result.diagnostics
    return found[0]


class ServiceLoader(yaml.SafeLoader):
    """The service's reading: safe loader, YAML 1.1, no timestamp rule (the reference, §8.1)."""


ServiceLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in rules if tag != "tag:yaml.org,2002:timestamp"]
    for first, rules in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def service_load(text: str):
    return yaml.load(text, Loader=ServiceLoader)


def scalars(node: Node):
    return [n for n in node.walk() if n.kind == "scalar"]


# =========================================================================== YAML scalars


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-01", "2024-01-01"),
        ("2024-01-01 10:00:00", "2024-01-01 10:00:00"),
        ("yes", True), ("Yes", True), ("no", False), ("on", True), ("OFF", False), ("true", True),
        ("y", "y"), ("n", "n"), ("Y", "Y"),
        ("010", 8), ("0x1F", 31), ("0b101", 5), ("1_000", 1000), ("+12", 12), ("-0", 0),
        ("7:30", 450), ("1:00:00", 3600),
        ("1.5", 1.5), ("1.0e+3", 1000.0), ("1.0e3", "1.0e3"), ("1e3", "1e3"), ("6.8523015e+5", 685230.15),
        (".inf", math.inf), ("-.INF", -math.inf),
        ("~", None), ("null", None), ("Null", None), ("", None),
        ("0o17", "0o17"), ("'yes'", "yes"), ('"010"', "010"), ("!!str 5", "5"), ("!!int '7'", 7),
        ("!!float 1", 1.0), ("! yes", True),  # PyYAML resolves a "!" plain scalar as untagged
    ],
)  # fmt: skip
def test_yaml11_scalar_resolution_matches_the_service(text, expected):
    result = parse_yaml(f"v: {text}\n")
    assert "WF001" not in codes(result)
    value = result.root.get("v").value
    assert value == expected and type(value) is type(expected)
    assert service_load(f"v: {text}\n")["v"] == expected


def test_nan():
    assert math.isnan(parse_yaml("v: .nan\n").root.get("v").value)


def test_scalar_styles_and_raw_text():
    text = "a: plain\nb: 'single'\nc: \"double\"\nd: |\n  lit\ne: >-\n  fold\n  ed\n"
    root = parse_yaml(text).root
    styles = {k.value: (v.style, v.raw) for k, v in root.pairs}
    assert styles == {
        "a": (None, "plain"),
        "b": ("'", "'single'"),
        "c": ('"', '"double"'),
        "d": ("|", "|\n  lit\n"),
        "e": (">", ">-\n  fold\n  ed\n"),
    }
    assert root.get("e").value == "fold ed"


def test_explicit_tags_that_construct_values():
    root = parse_yaml("t: !!timestamp 2024-01-01\nb: !!binary aGk=\ns: !!set {a, b}\no: !!omap [{a: 1}, {b: 2}]\n").root
    assert root.get("t").value == datetime.date(2024, 1, 1)
    assert root.get("b").value == b"hi"
    assert root.get("s").kind == "map" and root.get("s").keys() == ["a", "b"]
    assert root.get("o").kind == "seq"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("a: !foo x\n", "could not determine a constructor for the tag '!foo'"),
        ("a: !!python/object:os.system x\n", "could not determine a constructor for the tag"),
        ("a: !!map x\n", "expected a mapping node, but found scalar"),
        ("a: !!str [1]\n", "expected a scalar node, but found sequence"),
        ("a: !!omap {a: 1}\n", "expected a sequence, but found mapping"),
        ("a: !!omap [a]\n", "expected a mapping of length 1, but found scalar"),
        ("a: =\n", "could not determine a constructor for the tag 'tag:yaml.org,2002:value'"),
        ("a: <<\n", "could not determine a constructor for the tag 'tag:yaml.org,2002:merge'"),
        ("a: !!bool maybe\n", "cannot read 'maybe'"),
        ("a: !!int x\n", "cannot read 'x'"),
    ],
)
def test_bad_tags_are_wf001_but_keep_the_tree(text, problem):
    result = parse_yaml(text)
    d = only(result, "WF001")
    assert problem in d.message
    assert result.root is not None and result.root.is_map()
    with pytest.raises(Exception):  # noqa: B017 - PyYAML raises KeyError/ValueError for some
        service_load(text)


def test_equals_key_is_a_plain_string():
    result = parse_yaml("=: 1\n")
    assert codes(result) == [] and result.root.to_data() == {"=": 1}


def test_unhashable_key_is_wf001_with_the_service_detail():
    result = parse_yaml("a: 1\n[x]: 2\n")
    d = only(result, "WF001")
    assert (d.line, d.column) == (2, 1)
    assert d.service.detail == "Invalid YAML: found unhashable key at line 2, column 1 (while constructing a mapping at line 1, column 1)"


# =========================================================================== YAML structure and positions


def test_positions_are_characters_with_non_ascii_text():
    text = "é: 😀😀\nb: ü\nc: [é, 😀x]\n"
    root = parse_yaml(text).root
    b_key, b_value = root.pairs[1]
    assert (b_key.start.line, b_key.start.col, b_key.start.offset) == (2, 1, 6)
    assert (b_value.start.line, b_value.start.col) == (2, 4)
    last = root.get("c").items[1]
    assert (last.start.line, last.start.col, last.end.col) == (3, 8, 10)
    for node in scalars(root):
        assert text[node.start.offset : node.end.offset] == node.raw


def test_positions_with_crlf_line_breaks():
    text = "a: 1\r\nb:\r\n  - x\r\n  - |\r\n    lit\r\n    eral\r\nc: 'q\r\n  r'\r\n"
    root = parse_yaml(text).root
    assert root.to_data() == {"a": 1, "b": ["x", "lit\neral\n"], "c": "q r"}
    x = root.get("b").items[0]
    assert (x.start.line, x.start.col) == (3, 5)
    c = root.key_node("c")
    assert (c.start.line, c.start.col) == (7, 1)
    for node in scalars(root):
        assert text[node.start.offset : node.end.offset] == node.raw


def test_positions_after_a_bom_count_from_after_it():
    source, _ = decode(b"\xef\xbb\xbfa: 1\nb: [x]\n", "wf.yaml")
    root = parse(source).root
    assert (root.pairs[0][0].start.line, root.pairs[0][0].start.col) == (1, 1)
    assert (root.get("b").items[0].start.line, root.get("b").items[0].start.col) == (2, 5)


def test_block_collections_end_at_their_last_value_not_at_the_next_token():
    text = "a:\n  b: 1\n  c: [2]\n\n# comment\n\nd: 3\n"
    root = parse_yaml(text).root
    inner = root.get("a")
    assert (inner.start.line, inner.start.col) == (2, 3)
    assert (inner.end.line, inner.end.col) == (3, 9)
    assert (root.end.line, root.end.col) == (7, 5)


def test_flow_collection_spans_cover_the_brackets():
    root = parse_yaml("a: {b: [1, 2]}\n").root
    assert (root.get("a").start.col, root.get("a").end.col) == (4, 15)
    assert (root.get("a").get("b").start.col, root.get("a").get("b").end.col) == (8, 14)


def test_merge_keys_follow_pyyaml():
    text = "base: &b {x: 1, y: 2}\nother: &o {y: 5, z: 6}\nm:\n  <<: [*b, *o]\n  z: 9\nn:\n  <<: *b\n  x: 0\n"
    result = parse_yaml(text)
    assert codes(result) == []
    assert result.root.to_data() == service_load(text)


def test_aliases_share_the_anchored_node():
    result = parse_yaml("a: &x {k: 1}\nb: *x\n")
    assert result.root.get("a") is result.root.get("b")
    assert result.root.to_data() == {"a": {"k": 1}, "b": {"k": 1}}


def test_sniffing_and_formats():
    assert parse(SourceFile('{"a": 1}', "<stdin>")).format == "json"
    assert parse(SourceFile("  [1]", "<stdin>")).format == "json"
    assert parse(SourceFile("{a: 1}", "<stdin>")).format == "yaml"  # YAML flow, not JSON
    assert parse(SourceFile("a: 1", "<stdin>")).format == "yaml"
    assert parse(SourceFile("a: 1", "x.YML")).format == "yaml"
    assert parse(SourceFile('{"a": 1}', "x.yaml")).format == "yaml"
    assert parse(SourceFile('{"a": 1}', "x.txt"), fmt="json").format == "json"
    bad = parse(SourceFile("{a: 1}", "x.json"))
    assert bad.format == "json" and codes(bad) == ["WF001"]


# =========================================================================== WF001 YAML


def test_syntax_error_mirrors_the_service_message():
    # examples/bad_yaml_syntax.yaml and the service's verdict for it
    text = "title: t\nworkflow_definition:\n  blocks: [ {block_type: wait\n"
    result = parse_yaml(text)
    assert result.root is None
    d = only(result, "WF001")
    assert (d.line, d.column) == (4, 1)
    assert d.message == (
        "could not parse YAML: expected ',' or '}', but got '<stream end>' "
        "(while parsing a flow mapping at line 3, column 13)"
    )
    assert d.service.status == 422
    assert d.service.detail == (
        "Invalid YAML: expected ',' or '}', but got '<stream end>' at line 4, column 1 "
        "(while parsing a flow mapping at line 3, column 13)"
    )


@pytest.mark.parametrize(
    ("text", "line", "column", "problem"),
    [
        ("a: b: c\n", 1, 5, "mapping values are not allowed here"),
        ("a:\n  - b\n  -c\n", 4, 1, "could not find expected ':'"),
        ("a: 'x\n", 2, 1, "found unexpected end of stream"),
        ("a: *x\n", 1, 4, "found undefined alias 'x'"),
        ("a: &x 1\nb: &x 2\n", 2, 4, "anchor &x is defined twice (first at line 1, column 4)"),
        ("a: 1\n...\nb: 2\n", 3, 1, "expected '<document start>'"),
        ("a: é\x01\n", 1, 5, "unacceptable character #x0001"),
        ("a:\tb\n", 1, 3, "found character '\\t' that cannot start any token"),
    ],
)
def test_yaml_errors(text, line, column, problem):
    d = only(parse_yaml(text), "WF001")
    assert (d.line, d.column) == (line, column)
    assert problem in d.message
    with pytest.raises(yaml.YAMLError) as info:
        service_load(text)
    mark = getattr(info.value, "problem_mark", None)
    if mark is not None:  # the same place the service names
        assert (d.line, d.column) == (mark.line + 1, mark.column + 1)


def test_tab_where_libyaml_and_the_service_disagree():
    # libyaml reads `a:\tb`, PyYAML (the service) refuses it: the service wins
    d = only(parse_yaml("a: x\ty\n"), "WF001")
    assert d.service.detail.startswith("Invalid YAML: found character '\\t' that cannot start any token at line 1, column 5")
    # ...and the other way round: PyYAML reads a tab starting a block scalar line
    result = parse_yaml("a: 'x\ty'\nb: |\n  \tq\nc: x # tab\tin a comment\n")
    assert codes(result) == []
    assert result.root.to_data() == {"a": "x\ty", "b": "\tq\n", "c": "x"}


def test_wf001_does_not_fire_on_valid_yaml():
    result = parse_yaml("title: t\nworkflow_definition:\n  blocks: [{block_type: wait, label: a}]\n")
    assert codes(result) == []


# =========================================================================== WF002 / WF003 / WF005


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("- a\n- b\n", "holds a list"),
        ("just text\n", "holds a string"),
        ("42\n", "holds the number 42"),
        ("yes\n", "holds the boolean yes"),
        ("~\n", "holds nothing (null)"),
        ("---\n", "holds nothing (null)"),
        ("", "is empty"),
        ("# only a comment\n", "is empty"),
    ],
)
def test_wf002_not_a_mapping(text, words):
    result = parse_yaml(text)
    d = only(result, "WF002")
    assert words in d.message and d.name == "not-a-mapping" and d.severity == "error"
    assert codes(result) == ["WF002"]


def test_wf002_keeps_the_root():
    result = parse_yaml("- a\n")
    assert result.root is not None and result.root.is_seq()


def test_wf002_does_not_fire_on_a_mapping():
    assert codes(parse_yaml("title: x\n")) == []
    assert codes(parse_json('{"title": "x"}')) == []


def test_wf002_json_root():
    assert "holds a list" in only(parse_json("[1]"), "WF002").message
    assert "holds nothing (null)" in only(parse_json("null"), "WF002").message


def test_wf003_duplicate_key_at_the_repeated_key():
    result = parse_yaml("a: 1\nb:\n  c: 1\n  c: 2\na: 3\n")
    found = [d for d in result.diagnostics if d.code == "WF003"]
    assert [(d.line, d.column) for d in found] == [(4, 3), (5, 1)]
    assert found[0].message == "key 'c' is repeated (first at line 3); the service keeps the last value"
    assert found[0].name == "duplicate-key" and found[0].severity == "error"
    assert (found[0].end_line, found[0].end_column) == (4, 4)
    assert result.root.to_data() == {"a": 3, "b": {"c": 2}}  # last wins, as in the service


def test_wf003_keys_that_differ_in_text_but_not_in_value():
    result = parse_yaml("1: a\ntrue: b\n'1': c\n")
    d = only(result, "WF003")
    assert "key 'true' repeats key '1' (line 1)" in d.message


def test_wf003_quoted_and_plain_are_the_same_key():
    assert codes(parse_yaml("a: 1\n'a': 2\n")) == ["WF003"]


def test_wf003_does_not_fire_on_distinct_keys_or_merge_overrides():
    assert codes(parse_yaml("a: 1\nb: 2\nc: {a: 1}\n")) == []
    assert codes(parse_yaml("base: &b {x: 1}\nm:\n  <<: *b\n  x: 2\n")) == []
    assert codes(parse_json('{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]}')) == []


def test_wf003_json():
    result = parse_json('{\n  "a": 1,\n  "b": {"x": 1, "x": 2},\n  "a": 3\n}')
    found = [d for d in result.diagnostics if d.code == "WF003"]
    assert [(d.line, d.column) for d in found] == [(3, 17), (4, 3)]
    assert result.root.to_data() == {"a": 3, "b": {"x": 2}}


def test_wf005_second_document():
    result = parse_yaml("a: 1\n---\nb: 2\n")
    d = only(result, "WF005")
    assert (d.line, d.column) == (2, 1)
    assert d.name == "multiple-documents" and d.severity == "error"
    assert d.service.detail == (
        "Invalid YAML: but found another document at line 2, column 1 "
        "(expected a single document in the stream at line 1, column 1)"
    )
    assert result.root.to_data() == {"a": 1}  # the first document stays available


def test_wf005_does_not_fire_on_one_explicit_document():
    assert codes(parse_yaml("---\na: 1\n")) == []
    assert codes(parse_yaml("---\na: 1\n...\n")) == []
    assert codes(parse_yaml("%YAML 1.1\n---\na: 1\n")) == []


# =========================================================================== hostile YAML


def _billion_laughs(levels: int = 9) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, levels + 1):
        name, prev = chr(97 + i), chr(96 + i)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_quickly():
    start = time.process_time()
    result = parse_yaml(_billion_laughs())
    assert time.process_time() - start < 5
    d = only(result, "WF007")
    assert d.message.startswith("aliases expand the document by too many nodes: more than wflint's 'alias-nodes' limit of 200000;")
    assert result.root is None


def test_a_few_aliases_are_fine():
    result = parse_yaml(_billion_laughs(3))
    assert codes(result) == []


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: &a {b: *a}\n", "&r [1, [2, *r]]\n"])
def test_recursive_alias(text):
    result = parse_yaml(text)
    assert "recursive alias" in only(result, "WF001").message
    assert result.root is None


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "[" * 100_000 + "]" * 100_000,
        "{a: " * 100_000 + "1" + "}" * 100_000,
        "- " * 100_000 + "x\n",
        "".join(" " * i + "k:\n" for i in range(700)),
    ],
)
def test_deep_yaml_nesting_is_refused(text):
    start = time.process_time()
    result = parse_yaml(text)
    assert time.process_time() - start < 10
    d = only(result, "WF007")
    assert d.message.startswith(f"YAML nesting too deep: more than wflint's 'depth' limit of {MAX_DEPTH};")


def test_nesting_just_under_the_limit_is_fine():
    result = parse_yaml("a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n")
    assert codes(result) == []


# =========================================================================== JSON


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1,}',
        '{"a" 1}',
        '{"a": 1 "b": 2}',
        "[1 2]",
        "[1,]",
        "",
        "   ",
        '{"a": 1} x',
        '{"a": "unterminated}',
        '{"a": "ctrl\x01"}',
        '{"a": "\\q"}',
        "{'a': 1}",
        '{"a": tru}',
        '{"a": -}',
        '{"a": 01}',
        '{"a": [1, 2}',
        "{",
        '{"a":',
        '\n\n  {"a": [\n    1,\n    oops\n  ]}',
    ],
)
def test_json_syntax_errors_match_the_json_module(text):
    result = parse_json(text)
    assert result.root is None and result.format == "json"
    d = only(result, "WF001")
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(text)
    assert d.message == f"could not parse JSON: {info.value.msg}"
    assert (d.line, d.column) == (info.value.lineno, info.value.colno)
    assert d.offset == info.value.pos


def test_json_scalars():
    root = parse_json('{"s": "x\\u00e9\\n", "i": -12, "f": 1.5e3, "t": true, "n": null, "nan": NaN, "inf": -Infinity}').root
    data = root.to_data()
    assert data["s"] == "xé\n" and data["i"] == -12 and data["f"] == 1500.0 and data["t"] is True and data["n"] is None
    assert math.isnan(data["nan"]) and data["inf"] == -math.inf
    for node in scalars(root):
        assert node.style == "json"
    assert root.get("s").raw == '"x\\u00e9\\n"'
    assert root.get("f").raw == "1.5e3"


def test_json_positions():
    text = '{\n  "é": [1, {"b": "😀"}],\n  "c": true\n}\n'
    root = parse_json(text).root
    b_value = root.get("é").items[1].get("b")
    assert (b_value.start.line, b_value.start.col, b_value.end.col) == (2, 18, 21)
    assert (root.key_node("c").start.line, root.key_node("c").start.col) == (3, 3)
    assert (root.start.line, root.start.col, root.end.line, root.end.col) == (1, 1, 4, 2)
    for node in scalars(root):
        assert text[node.start.offset : node.end.offset] == node.raw


@pytest.mark.parametrize(
    "text",
    ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000, "[" * 100_000],
)
def test_deep_json_is_refused(text):
    d = only(parse_json(text), "WF007")
    assert d.message.startswith(f"JSON nesting too deep: more than wflint's 'depth' limit of {MAX_DEPTH};")


def test_json_nesting_just_under_the_limit_is_fine():
    text = '{"a": ' + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "}"
    assert codes(parse_json(text)) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(json_values, st.sampled_from([None, 0, 2, "\t"]), st.booleans())
def test_json_tree_equals_json_loads(value, indent, ensure_ascii):
    text = json.dumps({"v": value}, indent=indent, ensure_ascii=ensure_ascii)
    result = parse_json(text)
    assert codes(result) == []
    assert result.root.to_data() == json.loads(text)
    for node in scalars(result.root):
        assert text[node.start.offset : node.end.offset] == node.raw
        assert json.loads(node.raw) == node.value or node.value != node.value


yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12)
    | st.sampled_from(["yes", "no", "010", "7:30", "2024-01-01", "~", "y", "1_000", "0x1F", "<<", "="]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(yaml_values, st.sampled_from([None, '"', "'", "|", ">"]), st.booleans(), st.booleans())
def test_yaml_tree_equals_the_service_reading(value, style, flow, crlf):
    text = yaml.dump({"v": value}, default_style=style, default_flow_style=flow, allow_unicode=True, width=30)
    if crlf:
        text = text.replace("\n", "\r\n")
    result = parse_yaml(text)
    assert [c for c in codes(result) if c != "WF003"] == []
    assert result.root.to_data() == service_load(text)
    for node in scalars(result.root):
        assert text[node.start.offset : node.end.offset] == node.raw


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab:-[]{},'\"#&*!|>\n\t %@`é?", max_size=40))
def test_parse_never_raises(text):
    for path in ("x.yaml", "x.json", "<stdin>"):
        source = SourceFile(text, path)
        result = parse(source)
        for d in result.diagnostics:
            assert 1 <= d.line <= source.line_count and d.column >= 1


# =========================================================================== embedded documents

INNER = (
    "title: wrapped\n"
    "workflow_definition:\n"
    "  blocks:\n"
    "    - block_type: wait\n"
    '      label: "é\\u00e9 x"\n'
    "      wait_sec: 1\n"
    "      label: dup\n"
)


def _outer_variants(inner: str):
    yield "json-ascii", json.dumps({"yaml_definition": inner}, indent=2), "body.json"
    yield "json-utf8", json.dumps({"yaml_definition": inner}, ensure_ascii=False), "body.json"
    block = "".join("  " + line + "\n" for line in inner.splitlines())
    yield "yaml-literal", "yaml_definition: |\n" + block, "body.yaml"
    yield "yaml-crlf", ("yaml_definition: |\n" + block).replace("\n", "\r\n"), "body.yaml"


@pytest.mark.parametrize(("name", "text", "path"), list(_outer_variants(INNER)))
def test_embedded_positions_are_in_the_outer_file(name, text, path):
    outer = SourceFile(text, path)
    holder = parse(outer).root.get("yaml_definition")
    result = parse_embedded(outer, holder)
    assert isinstance(result.source, EmbeddedSource) and result.format == "yaml"
    assert result.root.to_data() == service_load(INNER)
    for node in scalars(result.root):
        if not isinstance(node.value, str):
            continue
        offsets = value_offsets(result.source, node)
        assert holder.start.offset <= offsets[0] <= offsets[-1] <= holder.end.offset
        if "\\" not in node.raw and "é" not in node.raw:  # no escapes: the outer text shows it as is
            assert "".join(text[o] for o in offsets[:-1]) == node.value
            assert text[node.start.offset : node.start.offset + len(node.value)] == node.value
    dup = only(result, "WF003")
    assert dup.path == path
    assert outer.line_text(dup.line)[dup.column - 1 :].startswith("label")


@pytest.mark.parametrize(("name", "text", "path"), list(_outer_variants("title: t\nblocks: [1,\n")))
def test_embedded_syntax_error_points_into_the_outer_file(name, text, path):
    outer = SourceFile(text, path)
    result = parse_embedded(outer, parse(outer).root.get("yaml_definition"))
    d = only(result, "WF001")
    assert result.root is None
    # the error is at the end of the inner text: just before the closing quote or at the end
    assert d.offset >= text.index("blocks")
    # the service's verdict speaks of the inner text's own lines
    assert d.service.detail.startswith("Invalid YAML: expected the node content, but found '<stream end>' at line 3, column 1")


def test_embedded_not_a_mapping_and_not_a_string():
    outer = SourceFile('{"yaml_definition": "- a\\n- b\\n", "n": 5}', "b.json")
    root = parse(outer).root
    assert "yaml_definition holds a list" in only(parse_embedded(outer, root.get("yaml_definition")), "WF002").message
    assert "must be a string" in only(parse_embedded(outer, root.get("n")), "WF002").message


def test_embedded_scalar_values_resolve_like_the_service():
    outer = SourceFile(json.dumps({"yaml_definition": "a: yes\nb: 2024-01-01\nc: 010\n"}), "b.json")
    result = parse_embedded(outer, parse(outer).root.get("yaml_definition"))
    assert result.root.to_data() == {"a": True, "b": "2024-01-01", "c": 8}
    c_value = result.root.get("c")
    assert outer.text[c_value.start.offset : c_value.end.offset] == "010"


def test_gc_is_enabled_again_after_parsing():
    import gc

    parse_yaml("a: 1\n")
    parse_json("{")
    assert gc.isenabled()


def test_pure_python_fallback_reads_the_same(monkeypatch):
    monkeypatch.setattr(parse_module, "_CParser", None)
    text = "a: yes\nb: [1, {c: 7:30}]\nd: |\n  x\n"
    result = parse_yaml(text)
    assert codes(result) == [] and result.root.to_data() == service_load(text)
    assert only(parse_yaml("a: 1\n---\nb: 2\n"), "WF005").line == 2
    assert only(parse_yaml("[" * 1000), "WF007").message.startswith("YAML nesting too deep")


def test_big_broken_file_keeps_libyaml_wording_without_a_verdict(monkeypatch):
    monkeypatch.setattr(parse_module, "_PURE_PYTHON_LIMIT", 10)  # as if the file were huge
    d = only(parse_yaml("title: t\nblocks: [ {a: b\n"), "WF001")
    assert "did not find expected ',' or '}'" in d.message  # libyaml's words
    assert d.service is None
    assert (d.line, d.column) == (3, 1)


def test_a_bom_left_in_the_text_is_skipped():
    text = "\ufeffa: 1\nb: [x]\n"
    result = parse_yaml(text)
    assert codes(result) == [] and result.root.to_data() == {"a": 1, "b": ["x"]}
    for node in scalars(result.root):
        assert text[node.start.offset : node.end.offset] == node.raw
    assert only(parse_json('\ufeff{"a": 1}'), "WF001").message.startswith("could not parse JSON: Unexpected UTF-8 BOM")
