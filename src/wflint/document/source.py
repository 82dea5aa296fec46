"""Source text: bytes → text, and character offsets ↔ (line, column).

Every position in wflint is a character offset into ``SourceFile.text`` plus the 1-based line and
column an editor shows for it. Line breaks are ``\\n``, ``\\r\\n`` (one break) and a lone ``\\r``,
the set editors and the Language Server Protocol agree on; columns count characters (code
points). ``decode`` never raises: a file that cannot become text gives a WF001 diagnostic.
"""

from __future__ import annotations

import codecs
from bisect import bisect_right
from typing import Callable

from ..core.diagnostics import Diagnostic, make
from ..core.diagnostics import Pos
from ..core.patterns import lazy

_LINE_BREAK = lazy(r"\r\n|\r|\n")

#: byte-order marks, longest first (the UTF-32-LE mark starts with the UTF-16-LE one)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "UTF-16"),
)

#: control bytes that never occur in a text file (tab, line feed, form feed, carriage return do)
_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13)) + b"\x7f"


class SourceFile:
    """One file's text with a line index.

    ``encoding`` is the encoding it was decoded from and ``bom`` whether it began with a
    byte-order mark (both only informative; ``text`` never holds the mark).
    """

    __slots__ = ("path", "text", "encoding", "bom", "_starts")

    def __init__(self, text: str, path: str = "<stdin>", *, encoding: str = "utf-8", bom: bool = False):
        self.path = path
        self.text = text
        self.encoding = encoding
        self.bom = bom
        self._starts: list[int] | None = None

    @property
    def _line_starts(self) -> list[int]:
        """The offset where each line starts, worked out when a position is first asked for
        (a file without findings never asks)."""
        starts = self._starts
        if starts is None:
            starts = self._starts = _line_starts(self.text)
        return starts

    def __repr__(self) -> str:
        return f"SourceFile({self.path!r}, {len(self.text)} chars, {self.line_count} lines)"

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def pos(self, offset: int) -> Pos:
        """The position of a character offset (clamped into ``0..len(text)``)."""
        if offset <= 0:
            return Pos(1, 1, 0)  # no line table needed
        if offset > len(self.text):
            offset = len(self.text)
        line = bisect_right(self._line_starts, offset)
        return Pos(line, offset - self._line_starts[line - 1] + 1, offset)

    def pos_function(self) -> Callable[[int], Pos]:
        """``pos`` without the range checks, for parsers that make a position per node."""
        new_pos = _pos_factory()
        source = self

        def pos(offset: int) -> Pos:
            starts = source._line_starts
            line = bisect_right(starts, offset)
            return new_pos(line, offset - starts[line - 1] + 1, offset)

        return pos

    def span_function(self) -> Callable[[int, int], tuple[Pos, Pos]]:
        """The positions of a start and an end offset at once: most scalars sit on one line,
        so the end needs no second search of the line index."""
        new_pos = _pos_factory()
        source = self

        def span(start: int, end: int) -> tuple[Pos, Pos]:
            starts = source._line_starts
            line = bisect_right(starts, start)
            line_start = starts[line - 1]
            if line == len(starts) or end < starts[line]:
                return new_pos(line, start - line_start + 1, start), new_pos(line, end - line_start + 1, end)
            end_line = bisect_right(starts, end)
            return new_pos(line, start - line_start + 1, start), new_pos(end_line, end - starts[end_line - 1] + 1, end)

        return span

    def offset(self, line: int, col: int) -> int:
        """The character offset of a 1-based line and column, clamped to that line's end."""
        if line < 1:
            return 0
        if line > len(self._line_starts):
            return len(self.text)
        start = self._line_starts[line - 1]
        return start + min(max(col, 1) - 1, len(self.line_text(line)))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line break ('' outside the file)."""
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self._line_starts[line] if line < len(self._line_starts) else len(self.text)
        text = self.text[start:end]
        if text.endswith("\r\n"):
            return text[:-2]
        if text.endswith(("\n", "\r")):
            return text[:-1]
        return text


class EmbeddedSource(SourceFile):
    """A document held in a string value of another file (an update body's ``yaml_definition``).

    It behaves as the *outer* file: ``text``, ``pos()``, ``line_text()`` and every node offset
    are the outer file's, so rules and output never know the difference. ``inner_text`` is the
    string value, and ``inner_to_outer[i]`` the outer offset of its character ``i`` (with one
    extra entry for the end), as ``string_offsets.value_offsets`` computes it.
    """

    __slots__ = ("outer", "inner_text", "_inner_to_outer")

    def __init__(self, outer: SourceFile, inner_text: str, inner_to_outer: "list[int] | Callable[[], list[int]]"):
        self.path = outer.path
        self.text = outer.text
        self.encoding = outer.encoding
        self.bom = outer.bom
        self._starts = outer._starts  # the same text: shared when the outer file has it
        self.outer = outer
        self.inner_text = inner_text
        #: the table, or the function that makes it when a position is first asked for
        self._inner_to_outer = inner_to_outer

    @property
    def inner_to_outer(self) -> list[int]:
        table = self._inner_to_outer
        if callable(table):
            table = self._inner_to_outer = table()
        return table

    def outer_pos(self, inner_offset: int) -> Pos:
        """The outer position of an offset into ``inner_text``."""
        table = self.inner_to_outer
        inner_offset = min(max(inner_offset, 0), len(table) - 1)
        return self.pos(table[inner_offset])


def _pos_factory() -> Callable[[int, int, int], Pos]:
    """Build ``Pos`` objects by filling the slots directly, as ``Pos.__init__`` does, without
    the call through the class (it matters: a parser makes two per node)."""
    try:
        slots = Pos.line, Pos.col, Pos.offset  # type: ignore[attr-defined]
        set_line, set_col, set_offset = (slot.__set__ for slot in slots)
    except AttributeError:  # pragma: no cover - Pos without slots
        return Pos
    new = object.__new__

    def new_pos(line: int, col: int, offset: int) -> Pos:
        p = new(Pos)
        set_line(p, line)
        set_col(p, col)
        set_offset(p, offset)
        return p

    return new_pos


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their breaks, split exactly where positions count lines
    (``str.splitlines`` also breaks at U+0085, U+2028, U+2029, VT, FF and more)."""
    return _LINE_BREAK.split(text)


def _line_starts(text: str) -> list[int]:
    if "\r" not in text:
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        return starts
    return [0] + [m.end() for m in _LINE_BREAK.finditer(text)]


# --------------------------------------------------------------------------- decoding


def decode(data: bytes, path: str = "<stdin>") -> tuple[SourceFile | None, list[Diagnostic]]:
    """Turn a file's bytes into a ``SourceFile``, or explain with WF001 why it is not text.

    UTF-8 is expected, with or without a byte-order mark (the mark is dropped, positions count
    from after it). UTF-16 and UTF-32 are accepted when they carry a mark.
    """
    try:
        return _decode(bytes(data), path)
    except Exception as exc:  # pragma: no cover - a last line of defence: never raise
        return None, [_error(f"file could not be read as text ({exc})", Pos(1, 1, 0), path)]


def _decode(data: bytes, path: str) -> tuple[SourceFile | None, list[Diagnostic]]:
    encoding, label, bom = "utf-8", "UTF-8", b""
    for mark, enc, name in _BOMS:
        if data.startswith(mark):
            encoding, label, bom = enc, name, mark
            break
    body = data[len(bom):]

    if not bom:
        nul = body.find(b"\0")
        if nul >= 0 or _mostly_control(body[:8192]):
            return None, [_binary_diagnostic(body, nul, path)]

    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        prefix = body[: exc.start].decode(encoding, errors="replace")
        where = SourceFile(prefix, path).pos(len(prefix))
        bad = body[exc.start : exc.start + 1].hex()
        msg = f"file is not valid {label} (byte 0x{bad} at line {where.line}, column {where.col}); save it as UTF-8"
        return None, [_error(msg, where, path)]

    if bom and "\0" in text:  # a UTF-16/32 file holding NUL characters is binary too
        where = SourceFile(text, path).pos(text.index("\0"))
        msg = f"file looks binary (NUL character at line {where.line}, column {where.col}); it must be text"
        return None, [_error(msg, Pos(1, 1, 0), path)]
    return SourceFile(text, path, encoding=encoding, bom=bool(bom)), []


def _mostly_control(sample: bytes) -> bool:
    if not sample:
        return False
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    return controls * 10 > len(sample)


def _binary_diagnostic(body: bytes, nul: int, path: str) -> Diagnostic:
    if nul >= 0 and len(body) >= 2 and body[0] != 0 and body[1] == 0 and body[3:4] in (b"\0", b""):
        msg = "file looks like UTF-16 without a byte-order mark; save it as UTF-8"
    elif nul >= 0:
        prefix = body[:nul].decode("utf-8", errors="replace")
        where = SourceFile(prefix).pos(len(prefix))
        msg = (
            f"file looks binary (NUL byte at line {where.line}, column {where.col}); "
            "a workflow file must be UTF-8 text"
        )
    else:
        msg = "file looks binary (mostly control bytes); a workflow file must be UTF-8 text"
    return _error(msg, Pos(1, 1, 0), path)


def _error(message: str, where: Pos, path: str) -> Diagnostic:
    return make("WF001", "syntax-error", "error", message, where, where, path=path)
