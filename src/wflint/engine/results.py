"""What one block execution gives back (``BlockResult``), and the pieces of a run every block uses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from .context import RunContext
from .stubs import Stubs


@dataclass
class BlockResult:
    status: str
    output: Any = None
    failure_reason: str | None = None
    #: ``can_continue_after_failure``: False overrides continue_on_failure / next_loop_on_failure
    can_continue: bool = True
    error_codes: list[str] = field(default_factory=list)
    #: run-level error entries this block contributes (``errors`` of the run)
    errors: list[dict[str, Any]] = field(default_factory=list)
    #: a loop's own safety/structure failure, not a child's
    synthetic: bool = False

    @property
    def success(self) -> bool:
        return self.status == "completed"


def failed(reason: str, output: Any = None, **kw: Any) -> BlockResult:
    return BlockResult("failed", output, reason, **kw)


class Runtime(Protocol):
    """The run as the block executors see it."""

    ctx: RunContext
    stubs: Stubs
    network: bool
    code_time_limit: float
    workflow_error_mapping: dict[str, str]
    llm_prompts: list[dict[str, str]]
    #: every conditional's label, loop bodies included (the branch-evaluation context omits their debug output)
    conditional_labels: set[str]
    page_url: str
    browser_open: bool
    #: task rows created so far (``get_task_order``: a validation block needs one before it)
    tasks_created: int

    def note_input(self, name: str, value: Any) -> None: ...

    def branch_ids(self, label: str, count: int) -> list[str]: ...

    def run_code(self, code: str, params: dict[str, Any]) -> dict[str, Any]: ...

    def execute(self, block: dict[str, Any], parent: str | None, index: int | None, value: Any) -> BlockResult: ...
