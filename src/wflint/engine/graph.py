"""The block graph a v2 run (and every loop body) walks: ``_build_workflow_graph``,
``resolve_conditional_merge_edges`` and ``compute_conditional_scopes`` of release 1.0.56."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..workflow import routing
from ..workflow.graph_search import reached_count


class GraphError(Exception):
    """``InvalidWorkflowDefinition`` raised while building the graph; the text is the engine's."""


@dataclass
class BlockGraph:
    start: str | None
    blocks: dict[str, dict[str, Any]]
    next_map: dict[str, str | None]
    scopes: dict[str, str]


def is_conditional(block: dict[str, Any]) -> bool:
    return block.get("block_type") == "conditional"


def branches(block: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in (block.get("branch_conditions") or []) if isinstance(b, dict)]


def strip_finally(blocks: list[dict[str, Any]], finally_label: str | None) -> list[dict[str, Any]]:
    """``_strip_finally_block_references``: the finally block leaves traversal, edges to it go."""
    if not finally_label:
        return blocks
    out = []
    for block in blocks:
        if block.get("label") == finally_label:
            continue
        if is_conditional(block) and any(b.get("next_block_label") == finally_label for b in branches(block)):
            block = {**block, "branch_conditions": [
                {**b, "next_block_label": None} if b.get("next_block_label") == finally_label else b
                for b in branches(block)
            ]}
        if block.get("next_block_label") == finally_label:
            block = {**block, "next_block_label": None}
        out.append(block)
    return out


def build(blocks: list[dict[str, Any]], loop_label: str | None = None) -> BlockGraph:
    where = f" inside loop {loop_label}" if loop_label else ""
    label_to_block: dict[str, dict[str, Any]] = {}
    next_map: dict[str, str | None] = {}
    for block in blocks:
        label = block.get("label")
        if label in label_to_block:
            raise GraphError(f"Duplicate block label detected{' in loop' if loop_label else ''}: {label}")
        label_to_block[label] = block
        next_map[label] = block.get("next_block_label") or None
    if not any(is_conditional(b) for b in blocks):
        for index, block in enumerate(blocks[:-1]):
            if next_map.get(block.get("label")) is None:
                next_map[block.get("label")] = blocks[index + 1].get("label")
    _merge_edges(blocks, next_map)

    adjacency: dict[str, set[str]] = {label: set() for label in label_to_block}
    incoming: dict[str, int] = {label: 0 for label in label_to_block}

    def add_edge(source: str, target: str | None) -> None:
        if not target:
            return
        if target not in label_to_block:
            raise GraphError(f"Block {source} references unknown next_block_label {target}{where}")
        if target not in adjacency[source]:
            adjacency[source].add(target)
            incoming[target] += 1

    for label, block in label_to_block.items():
        if is_conditional(block):
            for branch in branches(block):
                add_edge(label, branch.get("next_block_label"))
        else:
            add_edge(label, next_map.get(label))
    if not label_to_block:
        return BlockGraph(None, {}, {}, {})
    roots = [label for label, count in incoming.items() if count == 0]
    if not roots:
        raise GraphError(
            f"Circular reference detected{where}: every block is the target of another block's "
            "next_block_label, so there is no starting block. At least one block must not be the target "
            "of any next_block_label or branch condition."
        )
    if len(roots) > 1:
        raise GraphError(
            f"Disconnected blocks detected{where}: blocks ({', '.join(sorted(roots))}) are not reachable "
            "from any other block. Every block must be reachable from the first block through "
            "next_block_label or conditional branch references. Either connect them by setting another "
            "block's next_block_label to point to them, or remove them."
        )
    if reached_count(roots[0], adjacency, incoming) != len(label_to_block):
        raise GraphError(
            f"Circular reference detected{where}: some blocks form a loop through their next_block_label "
            "references, causing an infinite cycle. Ensure that following next_block_label from any block "
            "eventually reaches a block with next_block_label set to null."
        )
    return BlockGraph(roots[0], label_to_block, next_map, _scopes(label_to_block, next_map))


def _merge_edges(blocks: list[dict[str, Any]], next_map: dict[str, str | None]) -> None:
    """``resolve_conditional_merge_edges``: the save-time graph's step, on the run's blocks."""
    routing.resolve_merges([
        routing.ScopeBlock(block.get("label"), block.get("next_block_label"), is_conditional(block),
                           tuple(branch.get("next_block_label") for branch in branches(block)))
        for block in blocks
    ], next_map)


def _scopes(label_to_block: dict[str, Any], next_map: dict[str, str | None]) -> dict[str, str]:
    """Which conditional each block sits inside (its rows name that conditional as parent)."""
    scopes: dict[str, str] = {}
    for cond_label, cond in label_to_block.items():
        if not is_conditional(cond):
            continue
        targets = list(dict.fromkeys(b.get("next_block_label") for b in branches(cond)))
        if not targets:
            continue
        chains = []
        for target in targets:
            chain, cur = [], target
            while cur and cur in label_to_block:
                chain.append(cur)
                if is_conditional(label_to_block[cur]):
                    break
                cur = next_map.get(cur)
            chains.append(chain)
        count: dict[str, int] = {}
        for chain in chains:
            for label in chain:
                count[label] = count.get(label, 0) + 1
        for chain in chains:
            for label in chain:
                if count[label] >= len(targets):
                    break
                scopes.setdefault(label, cond_label)
    return scopes
