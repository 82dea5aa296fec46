"""Character offsets (what every wflint stage speaks) to and from LSP positions.

LSP counts columns in UTF-16 code units unless the client and server agree on UTF-8 or UTF-32;
wflint counts characters (code points). Lines are split at ``\\n``, ``\\r\\n`` and ``\\r``, as the
protocol says."""

from __future__ import annotations

import re
from bisect import bisect_right

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

    def position(self, offset: int) -> lsp.Position:
        offset = min(max(offset, 0), len(self.text))
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        return lsp.Position(line=line, character=self._units(self.text[start:offset]))

    def range(self, start: int, end: int) -> lsp.Range:
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
