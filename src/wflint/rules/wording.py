"""Words for places and names in messages: "wait block 'a'", "parameter 'k'", and the
"did you mean" suggestions."""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from ..workflow.view import Block, Path, Workflow


#: names a message lists before "and N more": a message stays short however many there are,
#: and a report stays linear in its file when each of N findings would list the other N
LISTED = 10


def bounded_list(items: Any, limit: int = LISTED, sep: str = ", ") -> str:
    """``a, b, c and 7 more``: the first ``limit`` items, then how many were left out."""
    shown: list[str] = []
    count = 0
    for item in items:
        if count < limit:
            shown.append(str(item))
        count += 1
    text = sep.join(shown)
    return text if count <= limit else f"{text} and {count - limit} more"


def block_at(wf: Workflow, path: Path) -> Block | None:
    """The innermost block containing ``path`` (by its prefixes, longest first: a lookup per
    prefix, not a scan of every block per question)."""
    by_path = wf.cache.get("blocks-by-path")
    if by_path is None:
        by_path = wf.cache["blocks-by-path"] = {b.path: b for b in wf.all_blocks}
    for end in range(len(path), 0, -1):
        b = by_path.get(path[:end])
        if b is not None:
            return b
    return None


def block_name(b: Block) -> str:
    kind = f"{b.tag} block" if b.tag else "block"
    return f"{kind} '{b.label}'" if b.label is not None else f"{kind} #{b.path[-1] + 1}"


def describe(wf: Workflow, path: Path) -> str:
    """A newcomer-friendly name for the object at ``path``: "wait block 'a'", "parameter 'k'"."""
    b = block_at(wf, path)
    if b is not None:
        rest = path[len(b.path):]
        if rest[:1] == ("branch_conditions",) and len(rest) >= 2:
            return f"branch {rest[1] + 1} of {block_name(b)}"
        if rest[:1] == ("condition",):
            return f"the condition of {block_name(b)}"
        return block_name(b)
    if path[:2] == ("workflow_definition", "parameters") and len(path) >= 3:
        p = next((p for p in wf.params if p.path == path[:3]), None)
        if p is not None and p.key:
            return f"parameter '{p.key}'"
        return f"parameter #{path[2] + 1}"
    if path[:2] == ("workflow_definition", "retry_policy"):
        return "the retry policy"
    if path[:1] == ("workflow_definition",):
        return "the workflow definition"
    return "the request"


def top_labels(wf: Workflow) -> list[str]:
    return [b.label for b in wf.blocks if b.label is not None]


def original_value(wf: Workflow, path: Path) -> Any:
    """The value as written in the file (before the YAML-path sanitizer renamed it)."""
    node = wf.node(path)
    if node is not None and node.kind == "scalar" and wf.root is not None:
        return node.value
    return None


#: a "did you mean" compares a word with at most this many candidates: all of them in a
#: normal file, the ones nearest in sorted order (typos keep the start of a word) in a
#: generated one, so suggestions cost O(findings), not O(findings x candidates)
CANDIDATE_WINDOW = 64
#: words longer than this get no suggestion (names are short; comparing long texts is costly)
LONGEST_WORD = 100


class Suggester:
    """Close matches among one set of candidates, sorted once for many questions."""

    __slots__ = ("pool",)

    def __init__(self, candidates: Any) -> None:
        self.pool = sorted(candidates)

    def match(self, word: str, cutoff: float = 0.6) -> str | None:
        import difflib

        if len(word) > LONGEST_WORD:
            return None
        pool = self.pool
        if len(pool) > CANDIDATE_WINDOW:
            half = CANDIDATE_WINDOW // 2
            lo = max(0, min(bisect_left(pool, word) - half, len(pool) - CANDIDATE_WINDOW))
            pool = pool[lo : lo + CANDIDATE_WINDOW]
        found = difflib.get_close_matches(word, pool, n=1, cutoff=cutoff)
        return found[0] if found else None

    def suggest(self, word: str) -> str | None:
        m = self.match(word)
        return f"did you mean '{m}'?" if m else None


def close_match(word: str, candidates: Any) -> str | None:
    return Suggester(candidates).match(word)


def suggest(word: str, candidates: Any) -> str | None:
    """One question: callers asking many about the same candidates keep a ``Suggester``."""
    return Suggester(candidates).suggest(word)
