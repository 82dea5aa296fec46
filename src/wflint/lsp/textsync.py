"""Incremental changes applied at the cost of the edit, not of the document.

pygls applies each ``didChange`` range by splitting the whole text into lines and writing every
line back: for a 21 MB document about 0.9 s per keystroke on the event loop, so 100 quick edits
stalled the server for over a minute before the debounced check could even start. Here a change
finds its line by counting line breaks a chunk at a time (``str.count`` in C) and splices the
text once: a few milliseconds however large the document.

Lines are split at ``\\n``, ``\\r\\n`` and ``\\r``, as the protocol says and ``positions.LineIndex``
counts them (pygls's ``str.splitlines`` also breaks at form feeds, U+2028 and others, which
puts an edit after such a character on the wrong line). A position past the end of its line
means the line's end, and past the last line the end of the text, as the protocol says.
"""

from __future__ import annotations

import re
from typing import Any

_BREAK = re.compile(r"\r\n|\r|\n")
#: characters counted per step when looking for a line
_CHUNK = 1 << 16


def _breaks(text: str, start: int, end: int) -> int:
    return text.count("\n", start, end) + text.count("\r", start, end) - text.count("\r\n", start, end)


def line_start(text: str, line: int, pos: int = 0, seen: int = 0) -> int:
    """The offset where 0-based ``line`` starts (``len(text)`` past the last line); ``pos``, the
    start of line ``seen``, lets a count go on from a line already found."""
    if line <= seen:
        return pos
    size = len(text)
    # most documents have no \r: counting \n alone is a third of the work
    breaks = _breaks if "\r" in text else (lambda t, a, b: t.count("\n", a, b))
    while pos < size:
        end = min(pos + _CHUNK, size)
        if text[end - 1:end + 1] == "\r\n":  # keep a CRLF in one chunk: it is one break
            end += 1
        n = breaks(text, pos, end)
        if seen + n >= line:
            for m in _BREAK.finditer(text, pos, end):
                seen += 1
                if seen == line:
                    return m.end()
        seen += n
        pos = end
    return size


def _code_points(segment: str, units: int, encoding: str) -> int:
    """How many characters of ``segment`` the first ``units`` of ``encoding`` cover."""
    if encoding == "utf-32" or segment.isascii():
        return min(units, len(segment))
    count = 0
    for i, c in enumerate(segment):
        width = (len(c.encode("utf-8", "surrogatepass")) if encoding == "utf-8"
                 else 2 if ord(c) > 0xFFFF else 1)
        if count + width > units:
            return i
        count += width
    return len(segment)


def _in_line(text: str, start: int, character: int, encoding: str) -> int:
    """The offset of column ``character`` of the line starting at ``start`` (its end at most)."""
    if start >= len(text):
        return len(text)
    m = _BREAK.search(text, start)
    end = m.start() if m else len(text)
    return start + _code_points(text[start:end], max(character, 0), encoding)


def offset_of(text: str, line: int, character: int, encoding: str = "utf-16") -> int:
    """The character offset of an LSP position (columns in ``encoding``'s units)."""
    return _in_line(text, line_start(text, line), character, encoding)


def apply_change(text: str, start: tuple[int, int], end: tuple[int, int], new_text: str,
                 encoding: str = "utf-16") -> str:
    """``text`` with the range from ``start`` to ``end`` ((line, character) pairs) replaced."""
    first = line_start(text, start[0])
    a = _in_line(text, first, start[1], encoding)
    # the end's line is counted on from the start's: the text before it is not read twice
    last = line_start(text, end[0], first, start[0]) if end[0] > start[0] else first
    b = max(a, _in_line(text, last, end[1], encoding))
    return text[:a] + new_text + text[b:]


def _encoding_name(codec: Any) -> str:
    value = getattr(codec, "encoding", None)
    value = getattr(value, "value", value)
    return value if value in ("utf-8", "utf-16", "utf-32") else "utf-16"


def install(workspace: Any) -> None:
    """Make ``workspace`` (pygls's) create documents that apply changes here."""
    from pygls.workspace import TextDocument, Workspace

    class SplicedTextDocument(TextDocument):
        def _apply_incremental_change(self, change: Any) -> None:
            r = change.range
            self._source = apply_change(self.source, (r.start.line, r.start.character),
                                        (r.end.line, r.end.character), change.text,
                                        _encoding_name(self._position_codec))

    class SplicingWorkspace(Workspace):
        def _create_text_document(self, doc_uri: str, source: str | None = None, version: int | None = None,
                                  language_id: str | None = None) -> TextDocument:
            return SplicedTextDocument(doc_uri, source=source, version=version, language_id=language_id,
                                       sync_kind=self._sync_kind, position_codec=self._position_codec)

    if type(workspace) is Workspace:
        workspace.__class__ = SplicingWorkspace
