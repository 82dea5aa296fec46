"""The diff for a terminal: one section per file, test cases first."""

from __future__ import annotations

from ..report.safe_text import printable
from . import show
from .changes import FileDiff
from .structure import FieldChange
from .words import Piece


def _words(pieces: list[Piece]) -> str:
    out = []
    for p in pieces:
        text = " ".join(p.text.split()) if p.kind != "same" else p.text
        if p.kind == "removed":
            out.append(f"[-{text}-]")
        elif p.kind == "added":
            out.append(f"{{+{text}+}}")
        elif p.kind == "elided":
            out.append(f"…({p.text} words)…")
        else:
            out.append(" ".join(text.split(" ")))
    return " ".join(" ".join(out).split())


def field_line(change: FieldChange) -> str:
    if show.spacing_only(change):
        return f"{change.path}: {show.SPACING_ONLY}"
    pieces = show.as_words(change)
    if pieces is not None:
        return f"{change.path}: {_words(pieces)}"
    return f"{change.path}: {show.value(change.old)} → {show.value(change.new)}"


def file_lines(d: FileDiff, release: str) -> list[str]:
    out = [show.headline(d)]
    summary = show.counts(d)
    if summary:
        out.append(f"  {summary}")
    out += [f"  ! {p}" for p in d.problems]
    if d.test_file is not None:
        changed = d.changed_cases
        out.append(f"  Test cases ({d.test_file}): {len(changed)} of {len(d.cases)} change")
        for c in changed:
            out.append(f"    {c.name}")
            out += [f"      {line}" for line in show.case_lines(c)]
    s = d.structure
    if s is not None:
        blocks = s.changed_blocks
        if blocks:
            out.append("  Blocks")
        for b in blocks:
            kind = f" ({b.block_type})" if b.block_type else ""
            if b.status == "added":
                out.append(f"    + {b.label}{kind} added")
                continue
            if b.status == "removed":
                out.append(f"    - {b.label}{kind} removed")
                continue
            out.append(f"    ~ {b.label}{kind}")
            if b.renamed_from is not None:
                out.append(f"        renamed from {b.renamed_from}")
            if b.moved:
                out.append(f"        moved {b.moved}")
            out += [f"        {field_line(f)}" for f in b.fields]
        params = s.changed_params
        if params:
            out.append("  Parameters")
        for p in params:
            if p.status == "added":
                out.append(f"    + {p.key} ({p.new_type}) added")
            elif p.status == "removed":
                out.append(f"    - {p.key} ({p.old_type}) removed")
            else:
                facts = ([f"renamed from {p.renamed_from}"] if p.renamed_from else []) + (
                    [f"retyped {p.old_type} → {p.new_type}"] if p.retyped else [])
                out.append(f"    ~ {p.key}" + (": " + ", ".join(facts) if facts else ""))
                out += [f"        {field_line(f)}" for f in p.fields]
        if s.edges_added or s.edges_removed:
            out.append("  Routing")
            out += [f"    + {show.edge(e)}" for e in s.edges_added]
            out += [f"    - {show.edge(e)}" for e in s.edges_removed]
        if s.settings:
            out.append("  Workflow")
            out += [f"    ~ {field_line(f)}" for f in s.settings]
    if d.dangling:
        out.append("  References left dangling")
        out += [f"    {x.where}: {x.field} names {x.name} ({x.why})" for x in d.dangling]
    if d.introduced:
        out.append(f"  Findings introduced (at service release {release})")
        out += [f"    {x.line}:{x.column} {x.severity} {x.code} {x.message}" for x in d.introduced]
    if d.fixed:
        out.append("  Findings fixed")
        out += [f"    {x.code} {x.message}" for x in d.fixed]
    return out


def render(diffs: list[FileDiff], release: str) -> str:
    if not diffs:
        return "no workflow changed\n"
    blocks = ["\n".join(printable(line, keep_tabs=True) for line in file_lines(d, release)) for d in diffs]
    return "\n\n".join(blocks) + "\n"
