"""Gitignore-style globs that cannot backtrack (``.gitignore`` files and the configuration's
``include`` / ``exclude`` / ``per-file-ignores``).

pathspec turns each ``*`` of a path segment into ``[^/]*``; with several in one segment a
regular expression tries every way to share the name between them before it gives up
(``**********a`` took 4.9 s per file walked, ``*a*a*a*a*b`` a minute on a 250-character name).
Here a segment ``P0*P1*…*Pn`` (each ``P`` fixed-width: literals, ``?`` and ``[…]``) becomes
``P0 (?>[^/]*?P1) … [^/]*Pn``: each middle piece is taken at its first occurrence, atomically,
which is never worse than a later one, so a segment costs a scan of the name per piece. Runs
of ``*`` collapse to one (git treats them alike, outside a whole ``**`` segment). A negated
class (``[!a]``) never matches ``/``, as in git (pathspec's own translation lets it).

What remains multiplicative is ``**`` (it spans directories): a pattern may have at most
``MAX_DOUBLE_STARS`` of them and ``MAX_PATTERN_CHARS`` characters; a longer or busier one is
refused (``GlobTooComplex``): the configuration says so and stops, a ``.gitignore`` line is
ignored with a note.
"""

from __future__ import annotations

from typing import Any, Iterable

import pathspec
from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

#: characters of one pattern
MAX_PATTERN_CHARS = 1000
#: ``**`` segments in one pattern (each may span any number of directories)
MAX_DOUBLE_STARS = 3


class GlobTooComplex(ValueError):
    """A pattern over the bounds: matching it could take time out of all proportion."""


def _split_stars(segment: str) -> list[str]:
    """``segment`` cut at each ``*`` that is not escaped or inside ``[…]``."""
    pieces, current, i, end = [], "", 0, len(segment)
    while i < end:
        ch = segment[i]
        if ch == "\\" and i + 1 < end:
            current += segment[i:i + 2]
            i += 2
            continue
        if ch == "[":
            j = i + 1
            if j < end and segment[j] in "!^":
                j += 1
            if j < end and segment[j] == "]":
                j += 1
            while j < end and segment[j] != "]":
                j += 1
            if j < end:  # a whole bracket expression: one fixed-width piece
                bracket = segment[i:j + 1]
                if bracket[1:2] in ("!", "^"):
                    bracket = bracket[:-1] + "/]"  # as in git, a negated class never matches '/'
                current += bracket
                i = j + 1
                continue
        if ch == "*":
            pieces.append(current)
            current = ""
        else:
            current += ch
        i += 1
    pieces.append(current)
    return pieces


class LinearGlobPattern(GitIgnoreSpecPattern):
    """pathspec's gitignore pattern with segments translated without backtracking."""

    __slots__ = ()

    @staticmethod
    def _translate_segment_glob(pattern: str, *args: Any) -> str:
        translate = GitIgnoreSpecPattern._translate_segment_glob
        pieces = _split_stars(pattern)
        if len(pieces) == 1:
            return translate(pieces[0], *args)
        head, *middle, tail = pieces
        out = translate(head, *args) if head else ""
        for piece in middle:
            if piece:  # an empty piece is a run of stars: one is enough
                out += f"(?>[^/]*?{translate(piece, *args)})"
        return out + "[^/]*" + (translate(tail, *args) if tail else "")


def check_pattern(line: str) -> None:
    """Raises ``GlobTooComplex`` for a pattern over the bounds."""
    text = line.strip()
    if len(text) > MAX_PATTERN_CHARS:
        raise GlobTooComplex(f"pattern of {len(text)} characters (at most {MAX_PATTERN_CHARS})")
    stars = sum(1 for segment in text.split("/") if segment == "**")
    if stars > MAX_DOUBLE_STARS:
        raise GlobTooComplex(f"pattern with {stars} '**' segments (at most {MAX_DOUBLE_STARS})")


def compile_globs(lines: Iterable[str]) -> pathspec.GitIgnoreSpec:
    """A spec of ``lines``; raises ``GlobTooComplex`` (naming the pattern) for one over the bounds."""
    lines = list(lines)
    for line in lines:
        try:
            check_pattern(line)
        except GlobTooComplex as exc:
            raise GlobTooComplex(f"{line[:60]!r}{'…' if len(line) > 60 else ''}: {exc}") from None
    return _spec(lines)


def compile_gitignore(lines: Iterable[str]) -> tuple[pathspec.GitIgnoreSpec, list[str]]:
    """A spec of a ``.gitignore``'s lines, leaving out those over the bounds; with a note on each."""
    kept, notes = [], []
    for number, line in enumerate(lines, 1):
        try:
            check_pattern(line)
        except GlobTooComplex as exc:
            notes.append(f"line {number} ignored: {exc}")
            continue
        kept.append(line)
    return _spec(kept), notes


def _spec(lines: list[str]) -> pathspec.GitIgnoreSpec:
    # the "simple" backend is Python's re, which the translation above is written for (a
    # re2 or hyperscan backend, when installed, would not take atomic groups)
    return pathspec.GitIgnoreSpec.from_lines(lines, LinearGlobPattern, backend="simple")
