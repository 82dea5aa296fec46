"""The diff as a pull-request (or merge-request) comment, within the host's size limit.

What matters most comes first: a summary of every file with the test cases whose path, status or
outputs change, then each file's details. The text is built from whole pieces (a line, a table)
and stops before the piece that would pass the limit, with a note saying how much was left out,
so a cut never leaves a table or a fence open.
"""

from __future__ import annotations

import re

from ..report.safe_text import escape_surrogates, printable
from . import show
from .changes import FileDiff
from .structure import FieldChange
from .words import Piece

#: GitHub refuses a comment body over 65,536 characters; GitLab's limit (1,000,000) is higher
GITHUB_LIMIT = 65_536
GITLAB_LIMIT = 1_000_000
#: said when the comment is cut
NOTE = ("\n\n---\n\n_{n} more line{s} of this diff not shown: the comment is kept under {limit:,} characters. "
        "Run `wflint diff` locally (or read the job's log) for the whole of it._\n")


def md_text(text: str) -> str:
    """Plain text for Markdown: markup characters escaped, ``@name`` mentioning nobody."""
    text = "".join("\\" + ch if ch in "\\`*_[]<>#|~" else ch for ch in " ".join(printable(text).split()))
    return text.replace("@", "@\u200b")


def md_code(text: str) -> str:
    """A one-line code span, fenced with more backticks than the text holds in a row."""
    text = " ".join(printable(text).split())
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


#: the longest word diff shown for one field (the rest is elided: the comment has room for more fields)
FIELD_LIMIT = 3_000


def _words(pieces: list[Piece]) -> str:
    out: list[str] = []
    used = 0
    for i, p in enumerate(pieces):
        if not p.text.strip():
            continue
        if used > FIELD_LIMIT:
            out.append(f"_…{len(pieces) - i} more changes in this field…_")
            break
        used += len(p.text)
        if p.kind == "removed":
            out.append(f"~~{md_text(p.text)}~~")
        elif p.kind == "added":
            out.append(f"**{md_text(p.text)}**")
        elif p.kind == "elided":
            out.append(f"_…{p.text} words…_")
        else:
            out.append(md_text(p.text))
    return " ".join(out)


def field_item(change: FieldChange) -> str:
    if show.spacing_only(change):
        return f"{md_code(change.path)}: {show.SPACING_ONLY}"
    pieces = show.as_words(change)
    if pieces is not None:
        return f"{md_code(change.path)}: {_words(pieces)}"
    return f"{md_code(change.path)}: {md_code(show.value(change.old))} → {md_code(show.value(change.new))}"


def _summary(d: FileDiff) -> list[str]:
    out = [f"### {md_text(show.headline(d))}"]
    summary = show.counts(d)
    if summary:
        out.append(md_text(summary))
    out += [f"> ⚠ {md_text(p)}" for p in d.problems]
    changed = d.changed_cases
    if d.test_file is not None and changed:
        out.append(f"**Test cases** ({md_code(d.test_file)}): {len(changed)} of {len(d.cases)} change")
        rows = ["| case | what changes |", "| --- | --- |"]
        rows += [f"| {md_text(c.name)} | {'<br>'.join(md_text(x) for x in show.case_lines(c))} |" for c in changed]
        out.append("\n".join(rows))
    elif d.test_file is not None:
        out.append(f"**Test cases** ({md_code(d.test_file)}): none of {len(d.cases)} changes path, status or outputs")
    return out


def _details(d: FileDiff, release: str) -> list[str]:
    s = d.structure
    out: list[str] = []
    if s is not None:
        blocks = s.changed_blocks
        if blocks:
            out.append("**Blocks**")
        for b in blocks:
            kind = f" ({md_text(b.block_type)})" if b.block_type else ""
            if b.status in ("added", "removed"):
                out.append(f"- {'➕' if b.status == 'added' else '➖'} {md_code(b.label)}{kind} {b.status}")
                continue
            facts = []
            if b.renamed_from is not None:
                facts.append(f"renamed from {md_code(b.renamed_from)}")
            if b.moved:
                facts.append(f"moved {md_text(b.moved)}")
            # a block and its fields are one piece: a cut comment never shows a block without them
            out.append("\n".join([f"- ✏️ {md_code(b.label)}{kind}" + (": " + ", ".join(facts) if facts else ""),
                                   *(f"  - {field_item(f)}" for f in b.fields)]))
        params = s.changed_params
        if params:
            out.append("**Parameters**")
        for p in params:
            if p.status == "added":
                out.append(f"- ➕ {md_code(p.key)} ({md_text(p.new_type or '?')}) added")
            elif p.status == "removed":
                out.append(f"- ➖ {md_code(p.key)} ({md_text(p.old_type or '?')}) removed")
            else:
                facts = ([f"renamed from {md_code(p.renamed_from)}"] if p.renamed_from else []) + (
                    [f"retyped {md_text(p.old_type or '?')} → {md_text(p.new_type or '?')}"] if p.retyped else [])
                head = f"- ✏️ {md_code(p.key)}" + (": " + ", ".join(facts) if facts else "")
                out.append("\n".join([head, *(f"  - {field_item(f)}" for f in p.fields)]))
        if s.edges_added or s.edges_removed:
            out.append("**Routing**")
            out += [f"- ➕ {md_text(show.edge(e))}" for e in s.edges_added]
            out += [f"- ➖ {md_text(show.edge(e))}" for e in s.edges_removed]
        if s.settings:
            out.append("**Workflow**")
            out += [f"- {field_item(f)}" for f in s.settings]
    if d.dangling:
        out.append("**References left dangling**")
        out += [f"- {md_code(x.where)}: {md_code(x.field)} names {md_code(x.name)} ({md_text(x.why)})" for x in d.dangling]
    if d.introduced:
        out.append(f"**Findings introduced** (at service release {md_text(release)})")
        out += [f"- {'✖' if x.severity == 'error' else '⚠' if x.severity == 'warning' else 'ℹ'} "
                f"{md_code(f'{x.path}:{x.line}:{x.column}')} **{x.code}** {md_text(x.message)}" for x in d.introduced]
    if d.fixed:
        out.append("**Findings fixed**")
        out += [f"- ✔ **{x.code}** {md_text(x.message)}" for x in d.fixed]
    if out:
        out.insert(0, f"#### {md_text(d.path)}")
    return out


def size(text: str) -> int:
    """Characters as a host counts them at most (UTF-16 code units: an emoji is two)."""
    return len(text.encode("utf-16-le")) // 2


def render(diffs: list[FileDiff], release: str, limit: int = GITHUB_LIMIT) -> str:
    changed = [d for d in diffs if d.status not in ("unchanged",)]
    moved = sum(1 for d in diffs for c in d.cases if c.path_changed or c.status_changed)
    head = [f"## wflint diff: {len(changed)} workflow{'s' if len(changed) != 1 else ''} changed",
            f"Judged as service release {md_text(release)}"
            + (f"; **{moved} test case{'s' if moved != 1 else ''} change{'' if moved != 1 else 's'} path or status**"
               if moved else "")]
    if not diffs:
        head.append("No workflow changed.")
    pieces = head + [p for d in diffs for p in _summary(d)]
    details = [p for d in diffs for p in _details(d, release)]
    if details:
        pieces += ["<details open><summary>Details</summary>\n", *details, "\n</details>"]
    return escape_surrogates(fit(pieces, limit))


def fit(pieces: list[str], limit: int) -> str:
    """The pieces joined by blank lines (a list item's lines by one line break), cut before
    the first piece that would pass ``limit`` with the note on what was left out."""
    def joined(items: list[str]) -> str:
        text = ""
        for item in items:
            sep = "\n" if item.startswith(("- ", "  - ")) else "\n\n"  # a list's items stay one list
            text += (sep if text else "") + item
        return text + "\n"

    whole = joined(pieces)
    if size(whole) <= limit:
        return whole
    # keep whole pieces while the text and the longest note still fit
    reserve = size(NOTE.format(n=len(pieces), s="s", limit=limit)) + 32
    kept: list[str] = []
    used = 0
    for item in pieces:
        cost = size(item) + 2
        if used + cost > limit - reserve:
            break
        kept.append(item)
        used += cost
    left = pieces[len(kept):]
    closing = "\n</details>" if any(p.startswith("<details") for p in kept) else ""
    text = joined(kept) + closing
    n = sum(p.count("\n") + 1 for p in left if p != "\n</details>")
    return text + NOTE.format(n=n, s="s" if n != 1 else "", limit=limit)
