"""Which blocks, and which branches of each conditional, a workflow's cases exercised."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def branch_name(branch: dict[str, Any], index: int) -> str:
    """How a branch is named in reports: its index, and where it goes (or ``default``)."""
    target = branch.get("next_block_label") or "(end)"
    return f"#{index} {'default' if branch.get('is_default') else 'if'} -> {target}"


@dataclass
class Coverage:
    #: every block label, loop children included, in definition order
    blocks: list[str] = field(default_factory=list)
    #: conditional label -> its branches' names, in order
    branches: dict[str, list[str]] = field(default_factory=dict)
    hit_blocks: set[str] = field(default_factory=set)
    hit_branches: set[tuple[str, int]] = field(default_factory=set)
    cases: int = 0

    @classmethod
    def of(cls, request: dict[str, Any]) -> "Coverage":
        coverage = cls()
        definition = request.get("workflow_definition") if isinstance(request, dict) else None
        coverage._walk((definition or {}).get("blocks") or [])
        return coverage

    def _walk(self, blocks: list[Any]) -> None:
        for block in blocks:
            if not isinstance(block, dict) or not isinstance(block.get("label"), str):
                continue
            self.blocks.append(block["label"])
            if block.get("block_type") == "conditional":
                branches = [b for b in block.get("branch_conditions") or [] if isinstance(b, dict)]
                self.branches[block["label"]] = [branch_name(b, i) for i, b in enumerate(branches)]
            self._walk(block.get("loop_blocks") or [])

    def add(self, result: dict[str, Any]) -> None:
        self.cases += 1
        for row in result.get("trace") or []:
            self.hit_blocks.add(row.get("label"))
            output = row.get("output")
            if row.get("block_type") == "conditional" and isinstance(output, dict):
                index = output.get("branch_index")
                if isinstance(index, int):
                    self.hit_branches.add((row.get("label"), index))

    @property
    def untested_blocks(self) -> list[str]:
        return [label for label in self.blocks if label not in self.hit_blocks]

    @property
    def untested_branches(self) -> list[tuple[str, int, str]]:
        return [(label, i, name) for label, names in self.branches.items() for i, name in enumerate(names)
                if (label, i) not in self.hit_branches]

    def counts(self) -> dict[str, int]:
        total_branches = sum(len(v) for v in self.branches.values())
        return {"blocks": len(self.blocks), "blocks_hit": len(self.blocks) - len(self.untested_blocks),
                "branches": total_branches, "branches_hit": total_branches - len(self.untested_branches)}

    def as_dict(self) -> dict[str, Any]:
        counts = self.counts()
        return {**counts, "blocks_percent": percent(counts["blocks_hit"], counts["blocks"]),
                "branches_percent": percent(counts["branches_hit"], counts["branches"]), "cases": self.cases,
                "untested_blocks": self.untested_blocks,
                "untested_branches": [{"conditional": c, "index": i, "branch": n} for c, i, n in self.untested_branches]}


def percent(hit: int, total: int) -> float:
    """A share as a percentage with one decimal; nothing to cover is fully covered (as coverage.py says)."""
    return 100.0 if total == 0 else round(100.0 * hit / total, 1)


def total(coverages: list[Coverage]) -> dict[str, Any]:
    """Blocks and branches over every workflow (those without tests included, nothing hit), and
    the figure ``--fail-under`` compares: the covered share of blocks and branches together."""
    counts = [c.counts() for c in coverages]
    blocks, blocks_hit = sum(c["blocks"] for c in counts), sum(c["blocks_hit"] for c in counts)
    branches, branches_hit = sum(c["branches"] for c in counts), sum(c["branches_hit"] for c in counts)
    return {"blocks": blocks, "blocks_hit": blocks_hit, "blocks_percent": percent(blocks_hit, blocks),
            "branches": branches, "branches_hit": branches_hit, "branches_percent": percent(branches_hit, branches),
            "percent": percent(blocks_hit + branches_hit, blocks + branches)}
