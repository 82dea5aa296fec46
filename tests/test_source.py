"""SourceFile positions and decode(): line breaks, BOMs, encodings, binary and broken input."""

from __future__ import annotations

import codecs
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from wflint.core.diagnostics import Pos
from wflint.document.source import SourceFile, decode

# --------------------------------------------------------------------------- positions


def test_pos_lf():
    src = SourceFile("ab\ncd\n", "f.yaml")
    assert src.pos(0) == Pos(1, 1, 0)
    assert src.pos(1) == Pos(1, 2, 1)
    assert src.pos(2) == Pos(1, 3, 2)  # the line break itself
    assert src.pos(3) == Pos(2, 1, 3)
    assert src.pos(6) == Pos(3, 1, 6)  # end of file, after the last break
    assert src.line_count == 3


def test_pos_crlf_counts_one_break():
    src = SourceFile("ab\r\ncd\r\nef", "f.yaml")
    assert src.pos(4) == Pos(2, 1, 4)  # the character after "\r\n" is column 1
    assert src.pos(5) == Pos(2, 2, 5)
    assert src.pos(8) == Pos(3, 1, 8)
    assert src.line_text(1) == "ab"
    assert src.line_text(2) == "cd"
    assert src.line_text(3) == "ef"
    assert src.line_count == 3


def test_pos_lone_cr_and_mixed_breaks():
    src = SourceFile("a\rb\nc\r\nd", "f")
    assert [src.pos(i).line for i in (0, 2, 4, 7)] == [1, 2, 3, 4]
    assert [src.line_text(n) for n in (1, 2, 3, 4)] == ["a", "b", "c", "d"]


def test_columns_count_characters_not_bytes():
    src = SourceFile("é😀x\n", "f")
    assert src.pos(2) == Pos(1, 3, 2)  # 'x' after two characters of 2 and 4 UTF-8 bytes


def test_pos_and_offset_clamp():
    src = SourceFile("ab\ncd", "f")
    assert src.pos(-5) == Pos(1, 1, 0)
    assert src.pos(99) == Pos(2, 3, 5)
    assert src.offset(2, 1) == 3
    assert src.offset(2, 99) == 5  # past the end of the line: its end
    assert src.offset(0, 1) == 0
    assert src.offset(9, 1) == 5
    assert src.line_text(0) == "" and src.line_text(3) == ""


def test_empty_text():
    src = SourceFile("", "f")
    assert src.pos(0) == Pos(1, 1, 0)
    assert src.line_count == 1
    assert src.line_text(1) == ""


def _reference_pos(text: str, offset: int) -> tuple[int, int]:
    """Line and column by splitting on the same breaks, the slow obvious way."""
    before = text[:offset]
    breaks = list(re.finditer(r"\r\n|\r|\n", before))
    # a "\r" right before offset whose "\n" is at offset is still a "\r\n" pair
    if breaks and breaks[-1].group() == "\r" and breaks[-1].end() == offset and text[offset : offset + 1] == "\n":
        breaks = breaks[:-1]
    line_start = breaks[-1].end() if breaks else 0
    return len(breaks) + 1, offset - line_start + 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\r\né😀 ", max_size=40), st.data())
def test_pos_matches_reference_and_offset_inverts_it(text, data):
    src = SourceFile(text, "f")
    offset = data.draw(st.integers(0, len(text)))
    pos = src.pos(offset)
    assert (pos.line, pos.col) == _reference_pos(text, offset)
    assert pos.offset == offset
    in_crlf = offset > 0 and text[offset - 1 : offset + 1] == "\r\n"
    if not in_crlf:
        assert src.offset(pos.line, pos.col) == offset
    assert "\n" not in src.line_text(pos.line) and "\r" not in src.line_text(pos.line)


# --------------------------------------------------------------------------- decode


def test_decode_utf8():
    src, diags = decode("a: é\n".encode(), "f.yaml")
    assert diags == []
    assert src.text == "a: é\n" and src.path == "f.yaml" and not src.bom


def test_decode_strips_utf8_bom_and_positions_count_after_it():
    src, diags = decode(codecs.BOM_UTF8 + b"a: 1\nb: 2\n", "f.yaml")
    assert diags == []
    assert src.text == "a: 1\nb: 2\n"
    assert src.bom
    assert src.pos(0) == Pos(1, 1, 0)


def test_decode_utf16_and_utf32_with_bom():
    for encoding in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        bom = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
               "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}[encoding]  # fmt: skip
        src, diags = decode(bom + "title: é😀\n".encode(encoding), "f.yaml")
        assert diags == [], encoding
        assert src.text == "title: é😀\n"
        assert src.encoding == encoding


def test_invalid_utf8_is_wf001_at_the_bad_byte():
    src, diags = decode(b"a: 1\nb: x\xffy\n", "f.yaml")
    assert src is None
    (d,) = diags
    assert (d.code, d.name, d.severity) == ("WF001", "syntax-error", "error")
    assert (d.line, d.column) == (2, 5)
    assert "not valid UTF-8" in d.message and "0xff" in d.message and "line 2, column 5" in d.message
    assert "save it as UTF-8" in d.message
    assert d.path == "f.yaml"


def test_invalid_utf8_column_counts_characters_before_it():
    _, diags = decode("é😀".encode() + b"\xc3(", "f")
    assert (diags[0].line, diags[0].column) == (1, 3)


def test_truncated_multibyte_sequence():
    src, diags = decode("a: é".encode()[:-1], "f")
    assert src is None and diags[0].code == "WF001" and "0xc3" in diags[0].message


def test_latin1_file_is_reported_not_decoded():
    src, diags = decode("title: café\n".encode("latin-1"), "f")
    assert src is None and "not valid UTF-8" in diags[0].message


def test_nul_byte_means_binary():
    src, diags = decode(b"a: 1\nb\x00c\n", "f")
    assert src is None
    assert diags[0].code == "WF001" and "looks binary" in diags[0].message
    assert "line 2, column 2" in diags[0].message


def test_utf16_without_bom_is_named():
    src, diags = decode("title: x\n".encode("utf-16-le"), "f")
    assert src is None and "UTF-16 without a byte-order mark" in diags[0].message


def test_control_garbage_means_binary():
    src, diags = decode(bytes(range(1, 9)) * 50, "f")
    assert src is None and "looks binary" in diags[0].message


def test_png_header_is_binary():
    src, diags = decode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "logo.yaml")
    assert src is None and "binary" in diags[0].message


def test_empty_file_decodes():
    src, diags = decode(b"", "f")
    assert diags == [] and src.text == ""


def test_text_with_a_few_control_chars_is_still_text():
    src, diags = decode(b"a: 1\x1b[0m\nb: 2\n", "f")
    assert diags == [] and src is not None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_decode_never_raises(data):
    src, diags = decode(data, "f")
    assert (src is None) == bool(diags)
    for d in diags:
        assert d.code == "WF001" and d.line >= 1 and d.column >= 1
