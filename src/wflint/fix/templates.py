"""Template references to renamed names (WF106), in any string of a definition.

A reference is rewritten inside ``{{ … }}`` and ``{% … %}`` tags (not ``{# … #}`` comments, not
inside ``{% raw %}…{% endraw %}``), outside the tag's quoted string literals, where an old name
is not preceded by a letter, digit, ``_`` or ``.`` (so ``x.open-page`` attribute access is left
alone) and not followed by a letter, digit or ``_``. ``{{ open-page_output.x }}``,
``{{my-url|upper}}``, ``{% if my-url %}`` and ``default(my-url)`` are all rewritten;
``'my-url'`` in a literal, ``{{ my-urlx }}`` and ``{# my-url #}`` are not. Every match of the
service's own pattern (``{{``, spaces, the old name, §8.2) is rewritten as well, so the fix never
misses a reference the service would have re-pointed (a name with a quote in it, an unterminated
tag); only comments and raw blocks are exempt, their text being literal. All names are replaced
in one pass, longest first, so a result is never replaced again.
"""

from __future__ import annotations

import re

_TAG_OPEN = re.compile(r"\{\{|\{%|\{#")
_ENDRAW = re.compile(r"\{%[-+]?\s*endraw\s*[-+]?%\}")


def _scan(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(code, literal): the spans of Jinja expression code (inside ``{{ }}`` and ``{% %}``,
    outside string literals), and the spans of ``{# #}`` comments and ``{% raw %}`` blocks.
    An unterminated tag ends the scan."""
    code: list[tuple[int, int]] = []
    literal: list[tuple[int, int]] = []
    i, n = 0, len(text)
    while True:
        m = _TAG_OPEN.search(text, i)
        if m is None:
            return code, literal
        start = m.end()
        if m.group() == "{#":
            j = text.find("#}", start)
            if j < 0:
                return code, literal
            literal.append((m.start(), j + 2))
            i = j + 2
            continue
        close = "}}" if m.group() == "{{" else "%}"
        segments: list[tuple[int, int]] = []
        seg_start, j, quote = start, start, None
        while j < n:
            c = text[j]
            if quote is not None:
                if c == "\\":
                    j += 2
                    continue
                if c == quote:
                    quote, seg_start = None, j + 1
                j += 1
                continue
            if c in "'\"":
                segments.append((seg_start, j))
                quote = c
            elif text.startswith(close, j):
                segments.append((seg_start, j))
                break
            j += 1
        else:
            return code, literal  # unterminated tag: nothing in it is rewritten
        if close == "%}" and text[start:j].strip(" \t\r\n-+") == "raw":
            end = _ENDRAW.search(text, j + 2)
            if end is None:
                return code, literal
            literal.append((m.start(), end.end()))
            i = end.end()
            continue
        code.extend(s for s in segments if s[1] > s[0])
        i = j + 2


def _names_pattern(names: dict[str, str]) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
    """Two patterns for the old names, longest first: on identifier-ish boundaries inside
    Jinja code, and the service's own ``{{``-then-name pattern (§8.2)."""
    if not names:
        return None
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    inside = re.compile(r"(?<![A-Za-z0-9_.])(?:" + alternatives + r")(?![A-Za-z0-9_])")
    service = re.compile(r"\{\{\s*(" + alternatives + r")(?![A-Za-z0-9_])")
    return inside, service


def _template_subs(text: str, patterns, names: dict[str, str]) -> list[tuple[int, int, str]]:
    """(start, end, new name) for every template reference to an old name in ``text``: every
    match inside Jinja code, and every match of the service's own pattern (so nothing the
    service's sanitizer rewrites is missed: a name with a quote in it), except in comments
    and raw blocks, whose text is literal."""
    if patterns is None or "{" not in text:
        return []
    inside, service = patterns
    code, literal = _scan(text)
    found: dict[int, tuple[int, int, str]] = {}
    for a, b in code:
        for m in inside.finditer(text, a, b):
            found[m.start()] = (m.start(), m.end(), names[m.group()])
    for m in service.finditer(text):
        a, b = m.span(1)
        if a not in found and not any(x <= a < y for x, y in literal):
            found[a] = (a, b, names[m.group(1)])
    out: list[tuple[int, int, str]] = []
    for sub in sorted(found.values()):
        if out and sub[0] < out[-1][1]:
            continue  # overlapping: the earlier, longer match wins
        out.append(sub)
    return out
