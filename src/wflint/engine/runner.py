"""One simulated run: parameters, traversal (v1 list or v2 graph), failure handling, the finally
block, and the normalised trace of ``service-runs.md`` (``_execute_workflow`` of release 1.0.56)."""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from ..checks.service_checks import uses_v2_constructs
from . import blocks as leaf
from . import control, io_blocks, semantics, stops
from . import graph as graphs
from .code_runner import DEFAULT_TIME_LIMIT, CodeRunner, shared_runner
from .context import RunContext, public
from .http_transport import AddressGuard
from .params import RefusedRun, resolve
from .results import BlockResult
from .stubs import Stubs

#: the namespace of the branch ids derived in ``Simulation.branch_ids``
_BRANCH_IDS = uuid.UUID("5d2f0a52-6c1e-4f0b-9a47-2f1d3e1c7b10")

_EXECUTORS: dict[str, Callable[..., BlockResult]] = {
    "code": leaf.code, "wait": leaf.wait, "terminate": leaf.terminate,
    "http_request": io_blocks.http_request, "text_prompt": io_blocks.text_prompt,
    "conditional": control.conditional, "for_loop": control.for_loop, "while_loop": control.while_loop,
    **{kind: io_blocks.task for kind in semantics.TASK_BLOCK_TYPES},
}


class Simulation:
    """Runs one case; ``run()`` gives the trace, ``inputs`` the rendered inputs of each row."""

    def __init__(self, request: Mapping[str, Any], case: Mapping[str, Any], *, network: bool = True,
                 on_block: Callable[[dict[str, Any]], Any] | None = None,
                 code_runner: CodeRunner | None = None, code_time_limit: float = DEFAULT_TIME_LIMIT,
                 url_validation: bool = False) -> None:
        self.request = dict(request)
        self.case = dict(case)
        self.definition = dict(self.request.get("workflow_definition") or {})
        self.network = network
        #: the server's host checks for http_request (its ``ENABLE_URL_VALIDATION``, off by default)
        self.address_guard = AddressGuard(enabled=url_validation)
        self.on_block = on_block
        self.code_time_limit = code_time_limit
        self._code_runner = code_runner
        self.stubs = Stubs(self.case)
        mapping = self.definition.get("error_code_mapping")
        self.workflow_error_mapping: dict[str, str] = dict(mapping) if isinstance(mapping, dict) else {}
        self.llm_prompts: list[dict[str, str]] = []
        self.trace: list[dict[str, Any]] = []
        self.inputs: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.status = "running"
        self.failure_reason: str | None = None
        self.ctx: RunContext
        self.conditional_labels = _conditional_labels(self.definition.get("blocks") or [])
        #: the fake browser's page: a task without a url inherits it, and fails while it is blank
        self.page_url = "about:blank"
        #: whether a browser exists yet (a code block or a task opened one)
        self.browser_open = False
        self.tasks_created = 0
        self._row_stack: list[int] = []
        self._branch_ids: dict[str, list[str]] = {}
        #: the run's deadline and cancel, when whoever runs it set one (the mock's runs do)
        self.stop_signal = stops.CURRENT.get()

    # ------------------------------------------------------------------ Runtime protocol

    def note_input(self, name: str, value: Any) -> None:
        if self._row_stack:
            self.inputs[self._row_stack[-1]][name] = value

    def branch_ids(self, label: str, count: int) -> list[str]:
        """Each branch's id: a UUID the service gives it at save time; here one derived from the
        workflow, the conditional and the branch's place, so the same simulation gives the same
        bytes (a random one made every trace differ)."""
        ids = self._branch_ids.setdefault(label, [])
        wpid = self.request.get("workflow_permanent_id") or self.request.get("title") or ""
        ids.extend(str(uuid.uuid5(_BRANCH_IDS, f"{wpid}\n{label}\n{i}")) for i in range(len(ids), count))
        return ids[:count]

    def run_code(self, code: str, params: dict[str, Any]) -> dict[str, Any]:
        runner = self._code_runner or shared_runner()
        limit = self.code_time_limit
        remaining = self.stop_signal.remaining() if self.stop_signal is not None else None
        if remaining is not None:
            self.stop_signal.check()
            limit = min(limit, max(remaining, 0.01))
        answer = runner.run(code, public(params), network=self.network, time_limit=limit)
        if self.stop_signal is not None:
            self.stop_signal.check()  # a code block cut short by the run's deadline is the run's
        return answer

    def execute(self, block: dict[str, Any], parent: str | None, index: int | None, value: str | None) -> BlockResult:
        """``execute_safe``: a row, the block's own ``execute``, then stale-output invalidation."""
        if self.stop_signal is not None:
            self.stop_signal.check()
        label, kind = block.get("label"), block.get("block_type")
        row = {"label": label, "block_type": kind, "status": "running", "parent": parent,
               "index": index, "value": value, "output": None, "failure_reason": None}
        self.trace.append(row)
        self.inputs.append({})
        self._row_stack.append(len(self.trace) - 1)
        self._notify(row)
        recorded_before = self.ctx.record_counts.get(label, 0)
        try:
            result = self._dispatch(block)
        finally:
            self._row_stack.pop()
        if not result.success and kind in semantics.NOT_CONTINUABLE_BLOCK_TYPES:
            result.can_continue = False
        if not result.success and index is not None and self.ctx.record_counts.get(label, 0) == recorded_before:
            self.ctx.record_output(label, None)  # a failed iteration's stale output must not leak
        # a block row keeps no empty output ({} or []): it reads null, while the run's outputs keep it
        row_output = result.output if result.output not in ({}, [], "") else None
        if isinstance(row_output, str):
            row_output = {"value": row_output}  # ``build_block_result`` wraps text for the row
        row.update(status=result.status, output=public(row_output), failure_reason=result.failure_reason)
        self.errors.extend(result.errors)
        self._notify(row)
        return result

    def _dispatch(self, block: dict[str, Any]) -> BlockResult:
        label = block.get("label")
        if self.stubs.has("blocks", label):
            return leaf.stubbed(self, block, self.stubs.take("blocks", label))
        executor = _EXECUTORS.get(block.get("block_type"), leaf.not_simulated)
        return executor(self, block)

    def _notify(self, row: dict[str, Any]) -> None:
        if self.on_block is not None:
            self.on_block(copy.deepcopy(row))

    # ------------------------------------------------------------------ the run

    def run(self) -> dict[str, Any]:
        name = self.case.get("name")
        wpid = self.request.get("workflow_permanent_id") or "wpid_simulated"
        if not [b for b in self.definition.get("blocks") or [] if isinstance(b, dict)]:
            # ``WorkflowHasNoBlocks`` (``resolve_workflow_for_run``), before the parameters
            return {"name": name, "http_status": 400, "body": {"detail": semantics.NO_BLOCKS_TO_RUN.format(wpid=wpid)}}
        try:
            parameters = resolve(self.definition, dict(self.case.get("parameters") or {}), wpid)
        except RefusedRun as refused:
            return {"name": name, "http_status": 400, "body": {"detail": refused.detail}}
        self.ctx = RunContext(self.request, parameters)
        unavailable = semantics.unavailable_secret_store(self.definition.get("parameters") or [])
        if unavailable:
            # ``initialize_workflow_run_context``: the run fails before any block (no finally)
            return {"name": name, "status": "failed", "failure_reason": unavailable, "errors": [],
                    "outputs": None, "trace": [], "llm_prompts": []}
        blocks = [b for b in self.definition.get("blocks") or [] if isinstance(b, dict)]
        finally_label = self.definition.get("finally_block_label") or None
        main = graphs.strip_finally(blocks, finally_label)
        try:
            if stored_version(self.definition) >= 2:
                self._walk_graph(main)
            else:
                self._walk_list(main)
            self._run_finally(blocks, finally_label)
        except stops.RunStopped as stopped:
            self._stopped(stopped)
        if self.status == "running":
            self.status = "completed"
        return {
            "name": name, "status": self.status, "failure_reason": self.failure_reason,
            "errors": self.errors, "outputs": self.ctx.final_outputs(),
            "trace": self.trace, "llm_prompts": self.llm_prompts,
        }

    def _walk_list(self, blocks: list[dict[str, Any]]) -> None:
        for block in blocks:
            if self._run_top(block, None):
                return

    def _walk_graph(self, blocks: list[dict[str, Any]]) -> None:
        try:
            graph = graphs.build(blocks)
        except graphs.GraphError as exc:
            self._stop("failed", str(exc))
            return
        visited: set[str] = set()
        current, seen_conditionals = graph.start, set()
        while current:
            block = graph.blocks.get(current)
            if block is None:
                self._stop("failed", f"Unable to find block with label {current}")
                return
            scope = graph.scopes.get(current)
            parent = scope if scope in seen_conditionals else None
            result_holder: list[BlockResult] = []
            stop = self._run_top(block, parent, result_holder)
            if graphs.is_conditional(block):
                seen_conditionals.add(current)
            visited.add(current)
            if stop:
                return
            result = result_holder[0]
            if graphs.is_conditional(block):
                output = result.output if isinstance(result.output, dict) else {}
                next_label = output.get("next_block_label") or graph.next_map.get(current)
            else:
                next_label = graph.next_map.get(current)
            if not next_label:
                return
            if next_label not in graph.blocks:
                self._stop("failed", f"Next block label {next_label} not found in workflow definition")
                return
            if next_label in visited:
                self._stop("failed", f"Cycle detected while traversing workflow definition at block {next_label}")
                return
            current = next_label

    def _run_top(self, block: dict[str, Any], parent: str | None, holder: list[BlockResult] | None = None) -> bool:
        """Run a top-level block; True when the run stops (``_handle_block_result_status``)."""
        result = self.execute(copy.deepcopy(block), parent, None, None)
        if holder is not None:
            holder.append(result)
        outcome = _terminal_outcome(block, result)
        if outcome is None:
            return False
        self._stop(*outcome)
        return True

    def _stopped(self, stopped: stops.RunStopped) -> None:
        """The run's deadline passed or it was canceled: the blocks still open end with the run's
        status, and nothing more runs (not the finally block either)."""
        self._row_stack.clear()
        for row in self.trace:
            if row["status"] == "running":
                row.update(status=stopped.status, failure_reason=stopped.reason)
                self._notify(row)
        self.status, self.failure_reason = stopped.status, stopped.reason

    def _stop(self, status: str, reason: str | None) -> None:
        if self.status in ("running",):
            self.status, self.failure_reason = status, reason

    def _run_finally(self, blocks: list[dict[str, Any]], finally_label: str | None) -> None:
        if not finally_label or self.status == "canceled":
            return
        block = next((b for b in blocks if b.get("label") == finally_label), None)
        if block is None:
            return
        was_final = self.status != "running"
        result = self.execute(copy.deepcopy(block), None, None, None)
        outcome = _terminal_outcome(block, result)
        if outcome is not None and not was_final:
            self._stop(*outcome)


def stored_version(definition: dict[str, Any]) -> int:
    """The version the service stores, which decides list order (1) or graph (2): a definition
    without ``version`` that routes with ``next_block_label`` or a conditional is stored as 2
    (an explicit 1 with such routing is refused at save time)."""
    version = definition.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        return version
    top = [(b.get("block_type"), b.get("next_block_label")) for b in definition.get("blocks") or [] if isinstance(b, dict)]
    return 2 if uses_v2_constructs(top) else 1


def _conditional_labels(blocks: list[Any]) -> set[str]:
    labels: set[str] = set()
    for block in blocks:
        if isinstance(block, dict):
            if block.get("block_type") == "conditional" and isinstance(block.get("label"), str):
                labels.add(block["label"])
            labels |= _conditional_labels(block.get("loop_blocks") or [])
    return labels


def _terminal_outcome(block: dict[str, Any], result: BlockResult) -> tuple[str, str | None] | None:
    """``_resolve_block_terminal_outcome``: the run's status and reason, or None to go on."""
    status = result.status
    if status not in semantics.STOPPING_STATUSES:
        return None
    if status == "canceled":
        return "canceled", None
    if block.get("continue_on_failure") and result.can_continue:
        return None
    kind, reason = block.get("block_type"), result.failure_reason
    if status == "failed":
        return "failed", semantics.RUN_FAILED_BY_BLOCK.format(block_type=kind, reason=reason)
    if status == "terminated":
        return "terminated", semantics.RUN_TERMINATED_BY_BLOCK.format(block_type=kind, reason=reason)
    return "failed", semantics.RUN_TIMED_OUT_BY_BLOCK.format(block_type=kind, reason=reason)


def simulate(request: Mapping[str, Any], case: Mapping[str, Any], *, release: str = "1.0.56",
             network: bool = True, on_block: Callable[[dict[str, Any]], Any] | None = None,
             own_code_worker: bool = False) -> dict[str, Any]:
    """Run ``request`` (a workflow request as posted) against one stub ``case``; the result is the
    normalised trace of ``service-runs.md`` (or ``{name, http_status, body}`` for a refused run).
    ``release`` names the engine modelled; 1.0.56 is the one observed. ``own_code_worker``: code
    runs in a worker started for this run and stopped after it (else the shared one)."""
    del release  # one engine release is modelled; the argument keeps the contract stable
    if not own_code_worker:
        return Simulation(request, case, network=network, on_block=on_block).run()
    with CodeRunner() as code_runner:
        return Simulation(request, case, network=network, on_block=on_block, code_runner=code_runner).run()
