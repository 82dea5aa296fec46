"""Words for places and names in messages: "wait block 'a'", "parameter 'k'", and the
"did you mean" suggestions."""

from __future__ import annotations

from typing import Any

from ..workflow.view import Block, Path, Workflow


def block_at(wf: Workflow, path: Path) -> Block | None:
    """The innermost block containing ``path``."""
    best = None
    for b in wf.all_blocks:
        if path[: len(b.path)] == b.path and (best is None or len(b.path) > len(best.path)):
            best = b
    return best


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


def close_match(word: str, candidates: Any) -> str | None:
    import difflib

    found = difflib.get_close_matches(word, sorted(candidates), n=1, cutoff=0.6)
    return found[0] if found else None


def suggest(word: str, candidates: Any) -> str | None:
    m = close_match(word, candidates)
    return f"did you mean '{m}'?" if m else None
