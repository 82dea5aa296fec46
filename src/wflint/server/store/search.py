"""The list search: SQL ``ILIKE '%term%'`` without a backtracking or quadratic matcher.

``%`` is any run of characters, ``_`` any one character, the rest literal, case-insensitive.
With ``%`` at both ends, a text matches when the pieces of the term between its ``%``s occur
in it in order without overlapping, and the leftmost occurrence of each piece is never worse
than any other choice. A piece is literal runs at fixed offsets (the ``_``s between them are
only a width), so it is found by ``str.find`` of its longest run, and only those hits are
checked, each by one anchored match of the piece: runs of ``_`` cost nothing, where a regular
expression search for ``.{8000}!`` tries 8,000 characters at every position of the text inside
one call that holds the interpreter lock (the mock froze for 53 s). A hit costs at most the
piece's width, which the ``search-chars`` limit bounds, and each call is short, so other
requests keep running; long scans check the request's budget (``budget.check_budget``), so a
request answered 503 stops working.
"""

from __future__ import annotations

import re
from typing import Callable

#: hits of a piece's longest run checked between two looks at the request's budget
_BUDGET_EVERY = 4096


class Piece:
    """One ``%``-free part of the term: literal runs at offsets within a fixed width."""

    def __init__(self, text: str) -> None:
        self.width = len(text)
        runs = [(m.start(), m.group()) for m in re.finditer(r"[^_]+", text)]
        self.anchor = max(runs, key=lambda run: len(run[1])) if runs else None
        # the text is lower-cased before matching, so the pattern needs no IGNORECASE
        self.whole = re.compile("".join("." if ch == "_" else re.escape(ch) for ch in text), re.DOTALL)

    def find(self, text: str, at: int, check: Callable[[], None]) -> int:
        """The leftmost start ``>= at`` where the piece occurs in ``text``, or -1."""
        if self.anchor is None:
            return at if at + self.width <= len(text) else -1
        offset, run = self.anchor
        last_start = len(text) - self.width
        pos = text.find(run, at + offset)
        hits = 0
        while pos != -1:
            start = pos - offset
            if start > last_start:
                return -1
            if self.whole.match(text, start):
                return start
            hits += 1
            if hits % _BUDGET_EVERY == 0:
                check()
            pos = text.find(run, pos + 1)
        return -1


class LikeMatcher:
    """``ILIKE '%term%'`` over many texts; ``check`` is called now and then on long scans (it
    raises to stop the work)."""

    def __init__(self, term: str, check: Callable[[], None] = lambda: None) -> None:
        self.pieces = [Piece(p.lower()) for p in term.split("%") if p]
        self.width = sum(p.width for p in self.pieces)
        self.check = check

    def matches(self, text: str) -> bool:
        if len(text) < self.width:
            return False
        text = text.lower()
        at = 0
        for piece in self.pieces:
            start = piece.find(text, at, self.check)
            if start < 0:
                return False
            at = start + piece.width
        return True
