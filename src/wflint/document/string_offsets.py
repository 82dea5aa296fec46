"""Where each character of a string value sits in the source text.

A string scalar's value is not its source text: JSON and double-quoted YAML have escapes, YAML
folds line breaks in plain and quoted scalars, and block scalars drop their indentation. To put
a Jinja error, or a node of an embedded ``yaml_definition``, at its exact line and column, the
scanning rules are replayed over the scalar's raw text (mirroring PyYAML's scanner), and the
result is checked against the parsed value: when the replay does not reproduce the value (a
case these rules do not cover), a greedy character alignment is used instead. Offsets never
leave the node's span, and nothing here raises.
"""

from __future__ import annotations

from bisect import bisect_left

from .nodes import Node
from .source import EmbeddedSource, SourceFile

_BREAKS = "\r\n\x85\u2028\u2029"
_JSON_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_YAML_ESCAPES = {
    "0": "\0", "a": "\x07", "b": "\x08", "t": "\x09", "\t": "\x09", "n": "\x0a", "v": "\x0b", "f": "\x0c",
    "r": "\x0d", "e": "\x1b", " ": "\x20", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0",
    "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_YAML_CODES = {"x": 2, "u": 4, "U": 8}


def value_offsets(source: SourceFile, node: Node) -> list[int]:
    """The source offset of every character of ``node.value``, plus one for its end.

    Offsets are in the coordinates of ``node.start.offset`` (for a node of an embedded document,
    the outer file's, when ``source`` is the ``EmbeddedSource`` it was parsed with), so
    ``source.pos(offset)`` gives the line and column. For a scalar that is not a string the
    offsets of its raw text are returned.
    """
    start, end = node.start.offset, node.end.offset
    raw = node.raw if node.raw is not None else source.text[start:end]
    value = node.value if isinstance(node.value, str) else raw
    try:
        relative = _relative_offsets(raw, node.style, value)
    except Exception:  # pragma: no cover - the replay is defensive; never let it escape
        relative = None
    if relative is None:
        relative = _align(raw, value)

    if source.text[start:end] == raw:
        result = [start + r for r in relative]
    elif isinstance(source, EmbeddedSource) and _inner_start(source, start, raw) is not None:
        base = _inner_start(source, start, raw)
        table = source.inner_to_outer
        last = len(table) - 1
        result = [table[min(base + r, last)] for r in relative]  # type: ignore[operator]
    else:  # the raw text is not where the node says: align with what is there
        result = [start + r for r in _align(source.text[start:end], value)]
    return [min(max(o, start), end) for o in result]


def _inner_start(source: EmbeddedSource, outer_start: int, raw: str) -> int | None:
    """The offset in the embedded text of a node that starts at ``outer_start`` in the outer file."""
    table = source.inner_to_outer
    guess = bisect_left(table, outer_start)
    for candidate in (guess, guess - 1, guess + 1):
        if 0 <= candidate < len(table) and source.inner_text.startswith(raw, candidate):
            return candidate
    return None


def _relative_offsets(raw: str, style: str | None, value: str) -> list[int] | None:
    """Offsets relative to the start of ``raw``, or None when the replay does not match."""
    if style == "json":
        if raw[:1] != '"':
            return None
        if "\\" not in raw:
            chars, offsets = raw[1:-1], list(range(1, len(raw)))
            return offsets if chars == value else None
        chars, offsets = _json_string(raw)
    elif style == '"' or style == "'":
        if raw[:1] != style:
            return None
        inner = raw[1:-1]
        if not any(c in inner for c in _BREAKS + "\t\\'"):  # nothing escaped or folded
            return list(range(1, len(raw))) if inner == value else None
        chars, offsets = _flow_scalar(raw, style == '"')
    elif style in ("|", ">"):
        return _block_scalar(raw, style == ">", value)
    else:
        if not any(c in raw for c in _BREAKS):
            return list(range(len(raw) + 1)) if raw == value else None
        chars, offsets = _plain(raw)
    return offsets if "".join(chars) == value else None


def _align(raw: str, value: str) -> list[int]:
    """A fallback: match each value character with the next equal raw character, in order."""
    offsets: list[int] = []
    j = 0
    for ch in value:
        k = raw.find(ch, j, j + 64)
        if k >= 0:
            offsets.append(k)
            j = k + 1
        else:
            offsets.append(min(j, max(len(raw) - 1, 0)))
    offsets.append(min(j, len(raw)))
    return offsets


def _line_break(raw: str, i: int) -> tuple[str, int]:
    """The line break at ``i`` as YAML normalizes it, and the index after it."""
    ch = raw[i]
    if ch == "\r" and raw[i + 1 : i + 2] == "\n":
        return "\n", i + 2
    if ch in "\r\n\x85":
        return "\n", i + 1
    return ch, i + 1


# --------------------------------------------------------------------------- JSON


def _json_string(raw: str) -> tuple[list[str], list[int]]:
    chars: list[str] = []
    offsets: list[int] = []
    i, n = 1, len(raw) - 1
    while i < n:
        ch = raw[i]
        if ch != "\\":
            chars.append(ch)
            offsets.append(i)
            i += 1
            continue
        kind = raw[i + 1]
        if kind == "u":
            code = int(raw[i + 2 : i + 6], 16)
            if 0xD800 <= code <= 0xDBFF and raw[i + 6 : i + 8] == "\\u":
                low = int(raw[i + 8 : i + 12], 16)
                if 0xDC00 <= low <= 0xDFFF:
                    chars.append(chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)))
                    offsets.append(i)
                    i += 12
                    continue
            chars.append(chr(code))
            offsets.append(i)
            i += 6
        else:
            chars.append(_JSON_ESCAPES[kind])
            offsets.append(i)
            i += 2
    offsets.append(n)
    return chars, offsets


# --------------------------------------------------------------------------- YAML flow scalars


def _flow_scalar(raw: str, double: bool) -> tuple[list[str], list[int]]:
    """A quoted scalar: PyYAML's ``scan_flow_scalar`` with an offset for each character."""
    chars: list[str] = []
    offsets: list[int] = []
    i, n = 1, len(raw) - 1
    while i < n:
        ch = raw[i]
        if not double and ch == "'" and raw[i + 1 : i + 2] == "'":
            chars.append("'")
            offsets.append(i)
            i += 2
        elif double and ch == "\\":
            kind = raw[i + 1]
            if kind in _YAML_ESCAPES:
                chars.append(_YAML_ESCAPES[kind])
                offsets.append(i)
                i += 2
            elif kind in _YAML_CODES:
                length = _YAML_CODES[kind]
                chars.append(chr(int(raw[i + 2 : i + 2 + length], 16)))
                offsets.append(i)
                i += 2 + length
            elif kind in _BREAKS:  # an escaped line break joins the lines without a space
                _, i = _line_break(raw, i + 1)
                i = _fold_breaks(raw, i, n, chars, offsets)
            else:
                raise ValueError(f"unknown escape {kind!r}")
        elif ch in " \t" or ch in _BREAKS:
            j = i
            while j < n and raw[j] in " \t":
                j += 1
            if j < n and raw[j] in _BREAKS:
                break_at = j
                line_break, j = _line_break(raw, j)
                before = len(chars)
                j = _fold_breaks(raw, j, n, chars, offsets)
                folded = len(chars) > before
                if line_break != "\n":
                    chars.insert(before, line_break)
                    offsets.insert(before, break_at)
                elif not folded:
                    chars.append(" ")
                    offsets.append(break_at)
            else:
                chars.extend(raw[i:j])
                offsets.extend(range(i, j))
            i = j
        else:
            chars.append(ch)
            offsets.append(i)
            i += 1
    offsets.append(n)
    return chars, offsets


def _fold_breaks(raw: str, i: int, n: int, chars: list[str], offsets: list[int]) -> int:
    """Skip indentation; each further (empty-line) break becomes a character of its own."""
    while True:
        while i < n and raw[i] in " \t":
            i += 1
        if i < n and raw[i] in _BREAKS:
            at = i
            line_break, i = _line_break(raw, i)
            chars.append(line_break)
            offsets.append(at)
        else:
            return i


def _plain(raw: str) -> tuple[list[str], list[int]]:
    """A multi-line plain scalar: words kept, line breaks folded (``scan_plain``)."""
    chars: list[str] = []
    offsets: list[int] = []
    i, n = 0, len(raw)
    while i < n:
        ch = raw[i]
        if ch not in " \t" and ch not in _BREAKS:
            chars.append(ch)
            offsets.append(i)
            i += 1
            continue
        j = i
        while j < n and raw[j] in " \t":
            j += 1
        if j < n and raw[j] in _BREAKS:
            break_at = j
            line_break, j = _line_break(raw, j)
            before = len(chars)
            j = _fold_breaks(raw, j, n, chars, offsets)
            if line_break != "\n":
                chars.insert(before, line_break)
                offsets.insert(before, break_at)
            elif len(chars) == before:
                chars.append(" ")
                offsets.append(break_at)
        else:
            chars.extend(raw[i:j])
            offsets.extend(range(i, j))
        i = j
    offsets.append(n)
    return chars, offsets


# --------------------------------------------------------------------------- YAML block scalars


def _block_scalar(raw: str, folded: bool, value: str) -> list[int] | None:
    """A ``|`` or ``>`` scalar. The content indentation depends on the parent's indentation,
    which the raw text does not show, so each plausible indentation is tried in turn."""
    i, n = 1, len(raw)
    chomping: bool | None = None
    increment: int | None = None
    while i < n and raw[i] in "+-123456789":
        if raw[i] in "+-":
            chomping = raw[i] == "+"
        else:
            increment = int(raw[i])
        i += 1
    while i < n and raw[i] not in _BREAKS:  # spaces and a comment after the header
        i += 1
    if i < n:
        _, i = _line_break(raw, i)
    body = i

    # the deepest indentation among leading empty lines and the first line with text
    column = deepest = 0
    j = body
    while j < n and (raw[j] == " " or raw[j] in _BREAKS):
        if raw[j] == " ":
            column += 1
            deepest = max(deepest, column)
            j += 1
        else:
            column = 0
            _, j = _line_break(raw, j)
    if increment is None:
        candidates = [max(deepest, 1)] + list(range(1, max(deepest, 1)))
    else:
        candidates = list(range(increment, max(deepest, increment) + 1))
    for indent in candidates:
        chars, offsets = _block_lines(raw, body, indent, folded, chomping)
        if "".join(chars) == value:
            return offsets
    return None


def _block_lines(raw: str, i: int, indent: int, folded: bool, chomping: bool | None) -> tuple[list[str], list[int]]:
    """``scan_block_scalar`` from the first content line, for one content indentation."""
    n = len(raw)
    first = i
    chars: list[str] = []
    offsets: list[int] = []
    breaks, i, column = _block_breaks(raw, i, 0, indent)
    line_break: tuple[str, int] | None = None
    while column == indent and i < n:
        for br in breaks:
            chars.append(br[0])
            offsets.append(br[1])
        leading_non_space = raw[i] not in " \t"
        start = i
        while i < n and raw[i] not in _BREAKS:
            i += 1
        chars.extend(raw[start:i])
        offsets.extend(range(start, i))
        line_break = None
        if i < n:
            at = i
            text, i = _line_break(raw, i)
            line_break = (text, at)
        breaks, i, column = _block_breaks(raw, i, 0, indent)
        if column == indent and i < n:
            folds = line_break is not None and line_break[0] == "\n" and leading_non_space and raw[i] not in " \t"
            if folded and folds:
                if not breaks:
                    chars.append(" ")
                    offsets.append(line_break[1])
            elif line_break is not None:
                chars.append(line_break[0])
                offsets.append(line_break[1])
        else:
            break
    if chomping is not False and line_break is not None:
        chars.append(line_break[0])
        offsets.append(line_break[1])
    if chomping is True:
        for br in breaks:
            chars.append(br[0])
            offsets.append(br[1])
    if offsets:
        last = offsets[-1]
        offsets.append(min(last + (2 if raw.startswith("\r\n", last) else 1), n))
    else:
        offsets.append(min(first, n))
    return chars, offsets


def _block_breaks(raw: str, i: int, column: int, indent: int) -> tuple[list[tuple[str, int]], int, int]:
    """``scan_block_scalar_breaks``: skip indentation, collect the line breaks of empty lines."""
    n = len(raw)
    breaks: list[tuple[str, int]] = []
    while column < indent and i < n and raw[i] == " ":
        i += 1
        column += 1
    while i < n and raw[i] in _BREAKS:
        at = i
        text, i = _line_break(raw, i)
        breaks.append((text, at))
        column = 0
        while column < indent and i < n and raw[i] == " ":
            i += 1
            column += 1
    return breaks, i, column
