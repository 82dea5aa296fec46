"""Code blocks of the README, by section, so tests can run the snippets as they are written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def section(heading: str) -> str:
    """The text under ``### heading`` (any level), up to the next heading of that level or higher."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"^(#+) {re.escape(heading)}\n", text, re.M)
    if match is None:
        raise LookupError(f"README has no section {heading!r}")
    level = len(match.group(1))
    out, fenced = [], False
    for line in text[match.end():].splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(rf"#{{1,{level}}} ", line):  # a '# comment' in a code block is no heading
            break
        out.append(line)
    return "".join(out)


def code_blocks(heading: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", section(heading), re.M | re.S)
