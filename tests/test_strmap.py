"""value_offsets(): every character of a string value back to its place in the file."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from wflint.document.nodes import Node
from wflint.document.parse import parse, parse_embedded
from wflint.document.source import SourceFile
from wflint.document.string_offsets import value_offsets

#: characters that exercise escapes, quoting, folding and indentation (NEL and LS are left out:
#: PyYAML's emitter does not round-trip them)
ALPHABET = "ab c\n\t'\"\\#:-é😀\r{}[],?*&!|>%@` ~\x07"


def value_node(text: str, path: str) -> tuple[SourceFile, Node]:
    source = SourceFile(text, path)
    result = parse(source)
    assert result.root is not None, result.diagnostics
    return source, result.root.get("k")


def assert_points_at_characters(source: SourceFile, node: Node) -> list[int]:
    """Each offset is in the node's span, increasing, and shows the character itself unless
    the character comes from an escape (``\\``) or from folding a line break."""
    offsets = value_offsets(source, node)
    value = node.value
    assert len(offsets) == len(value) + 1
    assert all(a < b for a, b in zip(offsets, offsets[1:]))
    assert node.start.offset <= offsets[0] and offsets[-1] <= node.end.offset
    text = source.text
    for char, offset in zip(value, offsets):
        shown = text[offset]
        assert (
            shown == char
            or shown == "\\"
            or (char in " \n" and shown in "\r\n")
        ), (char, offset, shown, node.raw)  # fmt: skip
    return offsets


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=30), st.sampled_from([None, 2, "\t"]), st.booleans())
def test_json_strings(value, indent, ensure_ascii):
    text = json.dumps({"k": value}, indent=indent, ensure_ascii=ensure_ascii)
    source, node = value_node(text, "x.json")
    assert node.value == value
    assert_points_at_characters(source, node)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20))
def test_json_strings_any_unicode(value):
    text = json.dumps({"k": value}, ensure_ascii=True)  # astral characters become surrogate pairs
    source, node = value_node(text, "x.json")
    offsets = assert_points_at_characters(source, node)
    for char, offset in zip(value, offsets):
        if ord(char) > 0xFFFF:
            assert text[offset : offset + 2] == "\\u" and text[offset + 6 : offset + 8] == "\\u"


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet=ALPHABET, max_size=30),
    st.sampled_from([None, '"', "'", "|", ">"]),
    st.sampled_from([8, 20, 80]),
    st.sampled_from([2, 4]),
    st.booleans(),
    st.booleans(),
)
def test_yaml_strings_in_every_style(value, style, width, indent, nested, crlf):
    data = {"outer": [{"k": value}]} if nested else {"k": value}
    text = yaml.dump(data, default_style=style, allow_unicode=True, width=width, indent=indent)
    if crlf:
        text = text.replace("\n", "\r\n")
    source = SourceFile(text, "x.yaml")
    result = parse(source)
    root = result.root
    node = root.get("outer").items[0].get("k") if nested else root.get("k")
    expected = yaml.load(text, Loader=yaml.CSafeLoader)
    assert node.value == (expected["outer"][0]["k"] if nested else expected["k"])
    if isinstance(node.value, str):
        assert_points_at_characters(source, node)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # JSON: escapes and a surrogate pair map to the backslash that starts them
        ('{"k": "a\\"b\\\\c\\ud83d\\ude00d"}', [7, 8, 10, 11, 13, 14, 26, 27]),
        # double-quoted YAML: \x, \u, \U escapes, an escaped line break, a folded line
        ('k: "a\\x41\\u00e9\\U0001F600b\\\n  c\n  d"\n', [4, 5, 9, 15, 25, 30, 31, 34, 35]),
        # single-quoted: '' is one quote; a blank line folds to "\n"
        ("k: 'it''s\n\n  x'\n", [4, 5, 6, 8, 10, 13, 14]),
        # plain multi-line: the break between words becomes a space at the line break
        ("k: one\n  two\n\n  three\n", [3, 4, 5, 6, 9, 10, 11, 13, 16, 17, 18, 19, 20, 21]),
    ],
)
def test_exact_offsets(text, expected):
    source, node = value_node(text, "x.json" if text.startswith("{") else "x.yaml")
    assert value_offsets(source, node) == expected


def test_literal_block_with_explicit_indentation_and_keep_chomping():
    text = "k: |2+\n    x\n  y\n\nz: 1\n"
    source, node = value_node(text, "x.yaml")
    assert node.value == "  x\ny\n\n"
    offsets = value_offsets(source, node)
    assert [text[o] for o in offsets[:-1]] == [" ", " ", "x", "\n", "y", "\n", "\n"]
    assert offsets[0] == text.index("    x") + 2


def test_folded_block_in_a_sequence():
    text = "k:\n- >\n  one\n  two\n\n  three\n- next\n"
    source = SourceFile(text, "x.yaml")
    node = parse(source).root.get("k").items[0]
    assert node.value == "one two\nthree\n"
    offsets = value_offsets(source, node)
    assert "".join(text[o] for o in offsets[:-1]) == "one\ntwo\nthree\n"


def test_template_error_position_in_a_block_scalar():
    text = "prompt: |\n  Hello {{ name }}\n  and {% if %}\n"
    source, node = value_node(text.replace("prompt", "k"), "x.yaml")
    offsets = value_offsets(source, node)
    where = source.pos(offsets[node.value.index("{%")])
    assert (where.line, where.col) == (3, 7)


def test_non_string_scalar_maps_its_raw_text():
    source, node = value_node("k: 0x1F\n", "x.yaml")
    assert node.value == 31
    assert value_offsets(source, node) == [3, 4, 5, 6, 7]


def test_mismatched_node_degrades_inside_its_span():
    source = SourceFile('k: "abc"\n', "x.yaml")
    start, end = source.pos(3), source.pos(8)
    wrong = Node("scalar", start, end, "xyz\n\n", '"', raw='"totally different"')
    offsets = value_offsets(source, wrong)
    assert len(offsets) == 6 and all(3 <= o <= 8 for o in offsets)
    no_raw = Node("scalar", start, end, "abc", '"', raw=None)
    assert value_offsets(source, no_raw) == [4, 5, 6, 7]


def test_embedded_document_nodes_map_through_both_layers():
    inner = 'a: "x\\ty"\nb: |\n  line one\n  line two\n'
    text = json.dumps({"yaml_definition": inner})
    outer = SourceFile(text, "body.json")
    result = parse_embedded(outer, parse(outer).root.get("yaml_definition"))
    b = result.root.get("b")
    offsets = value_offsets(result.source, b)
    assert "".join(text[o] for o in offsets[:-1]) == "line one\\line two\\"  # "\n" is the escape "\\n"
    a = result.root.get("a")
    offsets = value_offsets(result.source, a)
    assert [text[o] for o in offsets[:-1]] == ["x", "\\", "y"]  # inner "\t" escape, written as "\\t"
    assert text[offsets[1] : offsets[1] + 3] == "\\\\t"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab c:#'\"\\\n\té😀{}-", max_size=25), st.sampled_from([None, '"', "'", "|", ">"]))
def test_embedded_strings_round_trip(value, style):
    inner = yaml.dump({"k": value}, default_style=style, allow_unicode=True, width=20)
    for text, path in (
        (json.dumps({"yaml_definition": inner}), "b.json"),
        (yaml.dump({"yaml_definition": inner}, default_style="|", allow_unicode=True), "b.yaml"),
    ):
        outer = SourceFile(text, path)
        holder = parse(outer).root.get("yaml_definition")
        if holder.value != inner:  # the emitter could not keep this string exactly
            continue
        result = parse_embedded(outer, holder)
        node = result.root.get("k")
        if not isinstance(node.value, str):
            continue
        offsets = value_offsets(result.source, node)
        assert len(offsets) == len(node.value) + 1
        assert all(a <= b for a, b in zip(offsets, offsets[1:]))
        assert holder.start.offset <= offsets[0] and offsets[-1] <= holder.end.offset
        for char, offset in zip(node.value, offsets):
            assert text[offset] == char or text[offset] in "\\\r\n '"
