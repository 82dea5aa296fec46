"""The language server applies an editor's incremental changes at the cost of the edit, not of
the document (``wflint.lsp.textsync``): the same text as applying the range by hand, lines split
as the protocol splits them, and a 21 MB document no longer stalls the server for a minute on a
burst of keystrokes (bench/lsp_big_edits.py: 80 s -> 5 s for 100 edits, measured in one run)."""

from __future__ import annotations

import random
import time

import pytest

from wflint.lsp import textsync


def _reference(text: str, start: tuple[int, int], end: tuple[int, int], new: str, encoding: str) -> str:
    """Applying the change the slow, obvious way: split into lines at \\n, \\r\\n and \\r, count
    columns in the encoding's units character by character."""
    import re

    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(line: int, character: int) -> int:
        if line >= len(starts):
            return len(text)
        pos = starts[line]
        units = 0
        while pos < len(text) and text[pos] not in "\r\n":
            c = text[pos]
            width = len(c.encode("utf-8")) if encoding == "utf-8" else (2 if ord(c) > 0xFFFF and encoding == "utf-16" else 1)
            if units + width > character:
                break
            units += width
            pos += 1
        return pos

    a, b = offset(*start), offset(*end)
    return text[:a] + new + text[max(a, b):]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_a_change_gives_the_text_the_range_names(encoding):
    rng = random.Random(35)
    for _ in range(400):
        lines = ["".join(rng.choice("ab é😀\t") for _ in range(rng.randint(0, 8))) for _ in range(rng.randint(1, 6))]
        text = "".join(line + rng.choice(["\n", "\r\n", "\r"]) for line in lines) + rng.choice(["", "tail"])
        sl, el = sorted(rng.randint(0, len(lines) + 1) for _ in range(2))
        sc, ec = rng.randint(0, 14), rng.randint(0, 14)
        if (el, ec) < (sl, sc):
            el, ec = sl, sc
        new = rng.choice(["", "x", "XY\n", "😀\r\n"])
        assert textsync.apply_change(text, (sl, sc), (el, ec), new, encoding) == \
            _reference(text, (sl, sc), (el, ec), new, encoding), (text, (sl, sc), (el, ec))


def test_lines_are_the_protocols_even_across_the_counting_chunks():
    # a CRLF split by a chunk boundary is one line break; U+2028 and form feeds are none
    text = "a" * (textsync._CHUNK - 1) + "\r\n" + "second\u2028still second\x0c\nthird\n"
    assert textsync.line_start(text, 1) == textsync._CHUNK + 1
    assert textsync.apply_change(text, (2, 0), (2, 5), "3rd") == text.replace("third", "3rd")
    assert textsync.apply_change(text, (1, 7), (1, 12), "STILL") == text.replace("still", "STILL")
    many = "x\n" * 200_000
    assert textsync.line_start(many, 150_000) == 300_000 and textsync.line_start(many, 10**9) == len(many)


def test_the_server_creates_documents_that_splice():
    pytest.importorskip("pygls")
    from lsprotocol import types as lsp
    from pygls.workspace import Workspace

    ws = Workspace(None, lsp.TextDocumentSyncKind.Incremental)
    textsync.install(ws)
    ws.put_text_document(lsp.TextDocumentItem(uri="file:///w.yaml", language_id="yaml", version=1, text="a: 1\nb: 2\n"))
    ws.update_text_document(lsp.VersionedTextDocumentIdentifier(uri="file:///w.yaml", version=2),
                            lsp.TextDocumentContentChangePartial(
                                range=lsp.Range(start=lsp.Position(line=1, character=3), end=lsp.Position(line=1, character=4)),
                                text="20"))
    assert ws.get_text_document("file:///w.yaml").source == "a: 1\nb: 20\n"
    assert type(ws.get_text_document("file:///w.yaml")).__name__ == "SplicedTextDocument"


def test_a_change_to_a_large_document_costs_a_fraction_of_pyglss_line_by_line_rewrite():
    """CPU time of the two in the same run, best of three (a ratio, not a time: a busy machine
    slows both). pygls splits and rewrites every line; a splice copies the text once."""
    pytest.importorskip("pygls")
    from lsprotocol import types as lsp
    from pygls.workspace import TextDocument

    text = "k: 1\n" * 800_000  # 4 MB of short lines: pygls's rewrite is a Python step per line
    change = lsp.TextDocumentContentChangePartial(
        range=lsp.Range(start=lsp.Position(line=400_000, character=1), end=lsp.Position(line=400_000, character=1)),
        text="x")

    def best(apply) -> float:
        times = []
        for _ in range(3):
            t = time.process_time()
            apply()
            times.append(time.process_time() - t)
        return min(times)

    theirs = best(lambda: TextDocument("file:///a", text).apply_change(change))
    ours = best(lambda: textsync.apply_change(text, (400_000, 1), (400_000, 1), "x"))
    expected = TextDocument("file:///a", text)
    expected.apply_change(change)
    assert textsync.apply_change(text, (400_000, 1), (400_000, 1), "x") == expected.source
    assert ours < theirs / 4, (ours, theirs)
