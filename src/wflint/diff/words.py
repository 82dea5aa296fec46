"""Word diffs of text fields (prompts, goals, code): what was taken out and put in, with the
words around each change, so a reviewer reads the sentence rather than two whole prompts."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

_WORD = re.compile(r"\s+|[^\s]+")

#: words of unchanged text kept either side of a change; more is elided
CONTEXT = 6
#: word pairs beyond which two texts are not aligned (a 4,000-word prompt against another)
MAX_WORK = 4_000_000


@dataclass(frozen=True)
class Piece:
    """A run of words: ``kind`` is "same", "removed" or "added"; "elided" stands for unchanged
    words left out (``text`` then says how many)."""

    kind: str
    text: str


def word_diff(old: str, new: str, context: int = CONTEXT) -> list[Piece]:
    """The pieces that turn ``old`` into ``new``, word by word (whitespace is not compared: a
    reflow alone gives only "same" pieces; callers compare values before asking)."""
    a, b = old.split(), new.split()
    if len(a) * len(b) > MAX_WORK:
        # too long to align word by word in good time: the whole of each side
        return _elide([Piece("removed", " ".join(a)), Piece("added", " ".join(b))], context)
    # difflib's heuristic for popular items (autojunk) keeps long prompts of repeated words fast
    matcher = difflib.SequenceMatcher(None, a, b)
    pieces: list[Piece] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            pieces.append(Piece("same", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            pieces.append(Piece("removed", " ".join(a[i1:i2])))
        if j2 > j1:
            pieces.append(Piece("added", " ".join(b[j1:j2])))
    return _elide(pieces, context)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _elide(pieces: list[Piece], context: int) -> list[Piece]:
    out: list[Piece] = []
    for i, piece in enumerate(pieces):
        if piece.kind != "same":
            out.append(piece)
            continue
        words = _words(piece.text)
        counted = [w for w in words if w.strip()]
        keep_head = context if i > 0 else 0  # after a change
        keep_tail = context if i < len(pieces) - 1 else 0  # before a change
        if len(counted) <= keep_head + keep_tail + 2:
            out.append(piece)
            continue
        head = _first_words(words, keep_head)
        tail = _last_words(words, keep_tail)
        if head:
            out.append(Piece("same", head))
        out.append(Piece("elided", str(len(counted) - keep_head - keep_tail)))
        if tail:
            out.append(Piece("same", tail))
    return out


def _first_words(words: list[str], n: int) -> str:
    taken, out = 0, []
    for w in words:
        if taken >= n:
            break
        out.append(w)
        taken += bool(w.strip())
    return "".join(out)


def _last_words(words: list[str], n: int) -> str:
    taken, out = 0, []
    for w in reversed(words):
        if taken >= n:
            break
        out.append(w)
        taken += bool(w.strip())
    return "".join(reversed(out))


def is_prose(value: object) -> bool:
    """Whether a value reads better as a word diff than as old and new side by side."""
    return isinstance(value, str) and (len(value) > 40 or "\n" in value)
