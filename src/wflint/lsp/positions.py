"""Character offsets (what every wflint stage speaks) to and from LSP positions.

LSP counts columns in UTF-16 code units unless the client and server agree on UTF-8 or UTF-32;
wflint counts characters (code points). Lines are split at ``\\n``, ``\\r\\n`` and ``\\r``, as the
protocol says.

``point`` and ``span`` give positions and ranges as the protocol's JSON, with nothing from
lsprotocol (the opening of a session answers before lsprotocol is imported); ``position`` and
``range`` give lsprotocol's types, for the features pygls serves.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lsprotocol import types as lsp

_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    """Line starts of one text, and conversions in one encoding ("utf-16", "utf-8", "utf-32")."""

    def __init__(self, text: str, encoding: str = "utf-16"):
        self.text = text
        self.encoding = encoding
        self.starts = [0] + [m.end() for m in _BREAK.finditer(text)]

    def _line_end(self, line: int) -> int:
        if line + 1 < len(self.starts):
            end = self.starts[line + 1]
            while end > self.starts[line] and self.text[end - 1] in "\r\n":
                end -= 1
            return end
        return len(self.text)

    def _units(self, s: str) -> int:
        if self.encoding == "utf-32" or s.isascii():
            return len(s)
        if self.encoding == "utf-8":
            return len(s.encode("utf-8", "surrogatepass"))
        return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)

    def point(self, offset: int) -> tuple[int, int]:
        """The 0-based line and the column in this index's encoding of a character offset
        (clamped to the text)."""
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self.starts, offset) - 1
        return line, self._units(self.text[self.starts[line]:offset])

    def span(self, start: int, end: int) -> dict[str, Any]:
        """The range from ``start`` to ``end`` (no earlier than ``start``) as the protocol's JSON."""
        (l1, c1), (l2, c2) = self.point(start), self.point(max(start, end))
        return {"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}}

    def position(self, offset: int) -> lsp.Position:
        from lsprotocol import types as lsp

        line, character = self.point(offset)
        return lsp.Position(line=line, character=character)

    def range(self, start: int, end: int) -> lsp.Range:
        from lsprotocol import types as lsp

        return lsp.Range(start=self.position(start), end=self.position(max(start, end)))

    def offset(self, position: lsp.Position) -> int:
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[max(position.line, 0)]
        end = self._line_end(max(position.line, 0))
        want = max(position.character, 0)
        if self.encoding == "utf-32" or self.text[start:end].isascii():
            return min(start + want, end)
        units = 0
        i = start
        while i < end and units < want:
            units += self._units(self.text[i])
            i += 1
        return i

    def offset_of(self, line: int, col: int) -> int:
        """The offset of a 1-based line and character column (a Diagnostic's)."""
        if line - 1 >= len(self.starts):
            return len(self.text)
        start = self.starts[max(line - 1, 0)]
        return min(start + max(col - 1, 0), self._line_end(max(line - 1, 0)))

    def line_text(self, line: int) -> str:
        """The 0-based line's text without its break."""
        if not 0 <= line < len(self.starts):
            return ""
        return self.text[self.starts[line]:self._line_end(line)]
