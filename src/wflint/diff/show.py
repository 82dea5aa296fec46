"""Words shared by the diff's output formats: how a value, an edge, a case's outcome and a
field change are said. Each format escapes what it prints; nothing here does."""

from __future__ import annotations

import json
from typing import Any

from .changes import FileDiff
from .consequences import CaseChange
from .structure import ABSENT, FieldChange, RouteEdge
from .words import Piece, is_prose, word_diff

#: the longest value shown whole
VALUE_LIMIT = 160


def value(v: Any, limit: int = VALUE_LIMIT) -> str:
    if v is ABSENT:
        return "(not set)"
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str, sort_keys=True)
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: said of a text whose words are the same and whose spacing or line breaks are not (a literal
#: block re-wrapped: the service holds another string, and the LLM reads other line breaks)
SPACING_ONLY = "the same words, with other spacing or line breaks"


def spacing_only(change: FieldChange) -> bool:
    return isinstance(change.old, str) and isinstance(change.new, str) and change.old.split() == change.new.split()


def as_words(change: FieldChange) -> list[Piece] | None:
    """A word diff when both sides are prose; None to show old and new side by side."""
    if isinstance(change.old, str) and isinstance(change.new, str) and (is_prose(change.old) or is_prose(change.new)):
        return word_diff(change.old, change.new)
    return None


def edge(e: RouteEdge) -> str:
    how = {"next": "next", "branch": "branch", "merge": "merges", "sequence": "list order"}.get(e.via, e.via)
    detail = f" ({how}: {e.detail})" if e.detail else f" ({how})"
    where = f" in loop {e.scope}" if e.scope is not None else ""
    return f"{e.source} → {e.target}{detail}{where}"


def route(labels: list[str]) -> str:
    return " → ".join(labels) if labels else "(no block ran)"


def case_lines(c: CaseChange) -> list[str]:
    """What changed in one case, one fact a line."""
    out = []
    if c.path_changed:
        out.append(f"path: {route(c.old.path)}  ⇒  {route(c.new.path)}")
    if c.status_changed:
        out.append(f"status: {c.old.status} ⇒ {c.new.status}")
    if c.outputs_changed:
        names = c.changed_outputs
        out.append("outputs changed: " + (", ".join(names) if names else "the run's outputs"))
    if c.old.passed != c.new.passed:
        out.append("its expectations " + ("now hold" if c.new.passed else "no longer hold (wflint test fails)"))
    for side, outcome in (("old", c.old), ("new", c.new)):
        if outcome.error:
            out.append(f"on the {side} version: {outcome.error}")
    return out


def headline(d: FileDiff) -> str:
    """The file's one-line verdict."""
    where = d.path if d.old_path in (None, d.new_path) or d.new_path is None else f"{d.old_path} → {d.new_path}"
    status = d.status
    if d.formatting and d.status != "formatting only":
        status += " (also " + "; ".join(formatting_words(d)) + ")"
    elif d.formatting:
        status += ": " + "; ".join(formatting_words(d))
    return f"{where}: {status}"


def formatting_words(d: FileDiff) -> list[str]:
    from .formatting import WORDS

    return [WORDS[k] for k in d.formatting]


def counts(d: FileDiff) -> str:
    """A summary: "3 blocks, 1 parameter, 2 routing edges; 1 case changes path"."""
    s = d.structure
    parts = []
    if s is not None:
        for n, what in ((len(s.changed_blocks), "block"), (len(s.changed_params), "parameter"),
                        (len(s.edges_added) + len(s.edges_removed), "routing edge"), (len(s.settings), "setting")):
            if n:
                parts.append(f"{n} {what}{'s' if n != 1 else ''}")
    text = ", ".join(parts)
    moved = [c for c in d.cases if c.path_changed or c.status_changed]
    if d.cases:
        text += ("; " if text else "") + (f"{len(moved)} of {len(d.cases)} test case{'s' if len(d.cases) != 1 else ''} "
                                           "change path or status" if moved else f"no test case changes path ({len(d.cases)} run)")
    return text
