"""Code blocks of the README and the documentation site (docs/), by section, so tests can run
the snippets as they are written; and every block with the marker that may precede it.

A command block may be preceded by one HTML comment that says how it is covered:
``<!-- snippet: release (...) -->`` (run as written by ``pytest -m release``) or
``<!-- snippet: not runnable here: <why> -->``; an unmarked one is run by the default suite
(tests/test_doc_snippets.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
_MARKER = re.compile(r"<!-- snippet: ((?:(?!-->).)*) -->\n$", re.S)


def _section_in(text: str, heading: str) -> str | None:
    match = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.M)
    if match is None:
        return None
    level = len(match.group(1))
    out, fenced = [], False
    for line in text[match.end():].splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"#{{1,{level}}} ", line):  # a '# comment' in a code block is no heading
            break
        out.append(line)
    return "".join(out)


def section(heading: str, page: Path | None = None) -> str:
    """The text under the heading ``heading`` (any level), up to the next heading of that level
    or higher, in ``page`` or else in the one page (README or docs/) that has it."""
    found = [(p, s) for p in ([page] if page else PAGES)
             if (s := _section_in(p.read_text(encoding="utf-8"), heading)) is not None]
    if len(found) != 1:
        raise LookupError(f"{len(found)} pages have a section {heading!r}: {[str(p) for p, _ in found]}")
    return found[0][1]


def code_blocks(heading: str, language: str, page: Path | None = None) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", section(heading, page), re.M | re.S)


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    text: str
    marker: str | None  # the text of a preceding <!-- snippet: ... --> comment

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def all_blocks(pages: list[Path] = PAGES) -> list[Block]:
    out = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
            marker = _MARKER.search(text, max(0, m.start() - 600), m.start())
            out.append(Block(page, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2),
                             marker.group(1).strip() if marker else None))
    return out
