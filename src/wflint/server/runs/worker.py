"""Executing runs in the background, as the service's ``BackgroundTaskExecutor`` does.

The start request answers once the ``created`` run is committed; a worker thread then takes
the run through ``queued`` and ``running`` to its final status, running the workflow version
the run started on through the engine (``run_engine``) with the stubs recorded on the run.
Each block row is written as the engine reports it (``on_block``), after the block's delay
if the stubs ask for one, so a client polling the run or its timeline sees it progress. The
final status, output and errors are one transaction; then the webhook, if any, is signed and
delivered (``webhooks``) and its outcome recorded.

Every run stops. It has a deadline: the service's own (``max_elapsed_time_minutes``, 4 hours
unless the run or workflow sets it: ``timed_out``, "Workflow run exceeded max elapsed runtime
limit of N minutes.") or the mock's ``run-seconds`` limit, whichever comes first, counted from
the run's first start. A cancel marks the run ``canceled`` (only if it is not final yet) and
stops its work at once: the template being rendered is interrupted, a code block is cut off at
the run's deadline, and no further block starts. Runs wait in one line per organization, served
fairly (``runs.queue``). Webhooks are delivered by their own threads, never by a run's worker.

Runs a killed process left unfinished are started again from the beginning when the store is
next served (``resume``): their acknowledged ``created`` row and every committed status
survive, and a run is never lost. Their deadline still counts from their first start, and a run
that was executing when the process stopped :data:`MAX_STARTS` times is failed rather than
started again (it may be what stops the process). A finished run's webhook whose delivery has
no recorded outcome is sent then.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from datetime import datetime
from typing import Any

from ...engine import stops
from . import replies as run_replies, webhooks
from .engine import EngineMissing, Executor, workflow_request
from .queue import FairQueue
from ..store.runs import FINAL, RunStore
from .stubs import MAX_DELAY_SECONDS

log = logging.getLogger("wflint.server.runs.endpoints")

#: runs executing at once (worker threads); more wait their turn in ``created``
MAX_CONCURRENT_RUNS = 4
#: how often a delayed block looks for a cancel
CANCEL_CHECK_SECONDS = 0.1
#: threads delivering webhooks, apart from the run workers
WEBHOOK_THREADS = 4
#: times a run may be started; one still executing when the process stopped that often fails
MAX_STARTS = 3
#: the service's deadline for a run that sets none (``WORKFLOW_RUN_DEFAULT_MAX_ELAPSED_TIME_MINUTES``)
SERVICE_DEFAULT_MINUTES = 4 * 60


class RunCanceled(Exception):
    """Raised through the engine from ``on_block`` when the run was canceled meanwhile."""


class RunWorker:
    def __init__(self, state: Any, runs: RunStore, executor: Executor) -> None:
        self.state = state
        self.runs = runs
        self.executor = executor
        # an organization holds at most all workers but one, so another's run can always start
        self._queue = FairQueue(MAX_CONCURRENT_RUNS - 1)
        self._signals: dict[str, stops.StopSignal] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._done = threading.Condition(self._lock)
        self._pending: set[str] = set()
        #: webhooks sent apart from a run's worker (cancel), by at most WEBHOOK_THREADS threads
        self._hooks: "queue.Queue[dict[str, Any]]" = queue.Queue()
        self._hook_threads: list[threading.Thread] = []
        #: runs whose webhook is queued or being delivered (``wait`` waits for it too)
        self._hook_pending: dict[str, int] = {}

    def _start_threads(self) -> None:
        while len(self._threads) < MAX_CONCURRENT_RUNS:
            thread = threading.Thread(target=self._loop, daemon=True, name=f"wflint-run-{len(self._threads)}")
            self._threads.append(thread)
            thread.start()

    def submit(self, run_id: str, organization: str | None = None) -> None:
        if organization is None:
            record = self.runs.get(run_id)
            organization = record["organization_id"] if record else ""
        with self._lock:
            self._pending.add(run_id)
            self._start_threads()
        self._queue.put(organization, run_id)

    def cancel(self, run_id: str) -> None:
        """Stop the run's work now (the caller marked it ``canceled``)."""
        with self._lock:
            signal = self._signals.get(run_id)
        if signal is not None:
            signal.cancel()

    def pending(self) -> int:
        """Runs accepted and not finished yet (queued or executing)."""
        with self._lock:
            return len(self._pending)

    def resume(self) -> list[str]:
        """Start again every run a previous process left unfinished, and send the webhooks of
        finished runs it had not delivered yet; the ids of the runs started again."""
        ids = self.runs.unfinished()
        for run_id in ids:
            self.submit(run_id)
        for record in self.runs.undelivered():
            self.deliver_webhook_later(record)
        return ids

    def wait(self, run_id: str, timeout: float | None = None) -> bool:
        """Until the run's work (execution and webhook) is done; False on timeout."""
        with self._done:
            return self._done.wait_for(lambda: run_id not in self._pending and run_id not in self._hook_pending,
                                       timeout)

    def _loop(self) -> None:
        while True:
            organization, run_id = self._queue.take()
            try:
                self._run_safely(run_id)
            finally:
                self._queue.done(organization)
                with self._done:
                    self._pending.discard(run_id)
                    self._signals.pop(run_id, None)
                    self._done.notify_all()

    # ------------------------------------------------------------------ one run

    def _run_safely(self, run_id: str) -> None:
        try:
            self._run(run_id)
        except Exception:  # noqa: BLE001 - a worker must never die silently with a run half-done
            log.exception("run %s: unexpected error", run_id)
            now = self.state.now()
            self.runs.update(run_id, {"status": "failed", "failure_reason": "wflint serve: unexpected error while "
                                      "running the workflow (see the server log)", "modified_at": now,
                                      "finished_at": now}, unless_final=True)

    def _set(self, run_id: str, change: dict[str, Any]) -> dict[str, Any] | None:
        now = self.state.now()
        return self.runs.update(run_id, {"modified_at": now, **{k: (now if v is _NOW else v) for k, v in change.items()}},
                                unless_final=True)

    def _run(self, run_id: str) -> None:
        record = self.runs.get(run_id)
        if record is None or record["status"] in FINAL:
            return
        starts = int(record.get("starts") or 0)
        if starts >= MAX_STARTS:
            final = self._set(run_id, {"status": "failed", "finished_at": _NOW, "failure_reason": (
                f"wflint serve stopped {starts} times while this run was executing; it was not started again")})
            if final is not None:
                self.deliver_webhook_later(final)
            return
        self.runs.replace_blocks(run_id, [])  # a resumed run starts again from the beginning
        if self._set(run_id, {"status": "queued", "queued_at": _NOW, "started_at": None}) is None:
            return
        workflow = self.state.store.version(record["organization_id"], record["workflow_permanent_id"],
                                            record["workflow_version"])
        stubs = record.get("stubs") or {}
        first = record.get("first_started_at") or self.state.now()
        started = self._set(run_id, {"status": "running", "started_at": _NOW, "first_started_at": first,
                                     "starts": starts + 1})
        if started is None:
            return
        signal = self._signal(started)
        with self._lock:
            self._signals[run_id] = signal
        now = self.runs.get(run_id)
        if now is None or now["status"] in FINAL:
            return  # canceled between the write above and the signal's registration
        token = stops.CURRENT.set(signal)
        try:
            outcome = self._execute(record, workflow, stubs)
        finally:
            stops.CURRENT.reset(token)
        final = self._set(run_id, {**outcome, "finished_at": _NOW})
        if final is not None:
            self.deliver_webhook_later(final)

    def _signal(self, record: dict[str, Any]) -> stops.StopSignal:
        """The run's deadline: the service's (its ``max_elapsed_time_minutes``) or the mock's
        ``run-seconds`` limit, whichever is sooner, counted from the run's first start."""
        minutes = record.get("max_elapsed_time_minutes")
        if not isinstance(minutes, int) or isinstance(minutes, bool) or minutes <= 0:
            minutes = SERVICE_DEFAULT_MINUTES
        own = float(self.state.config.limits.run_seconds)
        try:
            elapsed = (datetime.fromisoformat(self.state.now()) -
                       datetime.fromisoformat(record["first_started_at"])).total_seconds()
        except (KeyError, TypeError, ValueError):
            elapsed = 0.0
        if minutes * 60 <= own:
            label = "minute" if minutes == 1 else "minutes"
            reason = f"Workflow run exceeded max elapsed runtime limit of {minutes} {label}."
            return stops.StopSignal(minutes * 60 - elapsed, reason)
        reason = (f"wflint serve stopped the run at its 'run-seconds' limit ({own:g} s; raise it with "
                  f"--limit run-seconds=N)")
        return stops.StopSignal(own - elapsed, reason)

    def _execute(self, record: dict[str, Any], workflow: dict[str, Any] | None, stubs: dict[str, Any]) -> dict[str, Any]:
        if workflow is None:  # deleted since: the service fails such a run at set-up
            return {"status": "failed", "failure_reason": f"Workflow not found. workflow_permanent_id="
                                                          f"{record['workflow_permanent_id']}"}
        blocks = BlockRows(self, record, workflow, stubs.get("delays") or {})
        case = {k: v for k, v in stubs.items() if k != "delays"}
        case.setdefault("name", record["run_id"])
        case["parameters"] = record["parameters"]
        try:
            result = self.executor(workflow_request(workflow), case, release=self.state.release,
                                   network=True, on_block=blocks.seen)
        except RunCanceled:
            return {"status": "canceled"}
        except stops.RunStopped as stopped:  # an executor that let the run's stop pass through
            return {"status": stopped.status, "failure_reason": stopped.reason}
        except EngineMissing as exc:
            return {"status": "failed", "failure_reason": str(exc)}
        if "http_status" in result:  # refused before it started (the start request checks these first)
            body = result.get("body")
            reason = body.get("detail") if isinstance(body, dict) else body
            return {"status": "failed", "failure_reason": f"Setup workflow failed. failure reason: {reason}"}
        blocks.settle(result.get("trace") or [])
        output = with_output_parameters(result.get("outputs"), workflow)
        return {"status": result.get("status") or "failed", "failure_reason": result.get("failure_reason"),
                "errors": list(result.get("errors") or []), "output": output if output else None}

    # ------------------------------------------------------------------ webhook

    def deliver_webhook_later(self, record: dict[str, Any]) -> None:
        """Queue the run's webhook for a delivery thread (a bounded number of them, apart from
        the run workers: a slow receiver holds a delivery thread, never a run)."""
        if not record.get("webhook_url") or not record.get("signing_key"):
            return
        with self._lock:
            self._hook_pending[record["run_id"]] = self._hook_pending.get(record["run_id"], 0) + 1
            if len(self._hook_threads) < WEBHOOK_THREADS:
                thread = threading.Thread(target=self._hook_loop, daemon=True,
                                          name=f"wflint-webhook-{len(self._hook_threads)}")
                self._hook_threads.append(thread)
                thread.start()
        self._hooks.put(record)

    def _hook_loop(self) -> None:
        while True:
            record = self._hooks.get()
            try:
                self.deliver_webhook(record)
            except Exception:  # noqa: BLE001 - one bad delivery must not stop the others
                log.exception("run %s: webhook delivery failed unexpectedly", record.get("run_id"))
            finally:
                with self._done:
                    left = self._hook_pending.get(record["run_id"], 1) - 1
                    if left > 0:
                        self._hook_pending[record["run_id"]] = left
                    else:
                        self._hook_pending.pop(record["run_id"], None)
                    self._done.notify_all()

    def deliver_webhook(self, record: dict[str, Any]) -> None:
        """Sign and deliver the run's webhook (when it has a URL and a key); record the outcome."""
        url, key = record.get("webhook_url"), record.get("signing_key")
        if not url or not key:
            return
        hook = webhooks.sign(url, run_replies.webhook_payload(record), key)
        reason = webhooks.deliver(hook)
        self.runs.update(record["run_id"], {"webhook_failure_reason": reason, "modified_at": self.state.now()})


class _Now:
    """Marks a timestamp field to be stamped in the same write."""


_NOW = _Now()


class BlockRows:
    """The engine's block reports as the run's stored block rows."""

    def __init__(self, worker: RunWorker, record: dict[str, Any], workflow: dict[str, Any],
                 delays: dict[str, Any]) -> None:
        self.worker, self.run_id = worker, record["run_id"]
        self.delays = delays
        self.definitions = _blocks_by_label((workflow.get("workflow_definition") or {}).get("blocks") or [])
        self.rows: list[dict[str, Any]] = []

    def _delay(self, label: str) -> float:
        value = self.delays.get(label, self.delays.get("*", 0))
        return min(float(value), MAX_DELAY_SECONDS) if isinstance(value, (int, float)) else 0.0

    def _canceled(self) -> bool:
        record = self.worker.runs.get(self.run_id)
        return record is None or record["status"] in FINAL

    def _pause(self, seconds: float) -> None:
        """The block's stubbed delay, cut short by a cancel or the run's deadline (looked for
        every tenth of a second)."""
        until = time.monotonic() + seconds
        signal = stops.CURRENT.get()
        while (left := until - time.monotonic()) > 0:
            time.sleep(min(left, CANCEL_CHECK_SECONDS))
            if self._canceled():
                raise RunCanceled()
            if signal is not None and signal.stopped() is not None:
                raise signal.stopped()

    def seen(self, report: dict[str, Any]) -> None:
        """``on_block``: a report without a final status opens a row, one with it closes the
        open row of that label (the block's delay passes before it is closed)."""
        if self._canceled():
            raise RunCanceled()
        label = report.get("label")
        status = report.get("status")
        open_row = next((r for r in reversed(self.rows) if r["label"] == label and r["status"] == "running"), None)
        if status in (None, "running", "created", "queued") or open_row is None:
            open_row = self._open(report)
        if status not in (None, "running", "created", "queued"):
            self._pause(self._delay(label))
            self._close(open_row, report)

    def _row(self, report: dict[str, Any]) -> dict[str, Any]:
        label = report.get("label")
        definition = self.definitions.get(label, {})
        parent = next((r for r in reversed(self.rows) if r["label"] == report.get("parent")), None)
        value = report.get("value")
        now = self.worker.state.now()
        return {"workflow_run_block_id": self.worker.state.new_id("wrb"), "label": label,
                "block_type": report.get("block_type") or definition.get("block_type"), "status": "running",
                "parent_workflow_run_block_id": parent["workflow_run_block_id"] if parent else None,
                "continue_on_failure": bool(definition.get("continue_on_failure")),
                "current_index": report.get("index"), "current_value": None if value is None else str(value),
                "created_at": now, "modified_at": now}

    def _open(self, report: dict[str, Any]) -> dict[str, Any]:
        row = self._row(report)
        row["position"] = len(self.rows)
        self.rows.append(row)
        self.worker.runs.set_block(self.run_id, row["position"], row)
        return row

    def _close(self, row: dict[str, Any], report: dict[str, Any]) -> None:
        row.update({"status": report.get("status"), "output": report.get("output"),
                    "failure_reason": report.get("failure_reason"), "modified_at": self.worker.state.now()})
        self.worker.runs.set_block(self.run_id, row["position"], row)

    def settle(self, trace: list[dict[str, Any]]) -> None:
        """The engine's final trace is the authority: rows it reports that ``on_block`` did not
        (or reported differently) are written from it, in start order."""
        if not trace:
            return
        rows = []
        for i, item in enumerate(trace):
            row = self.rows[i] if i < len(self.rows) and self.rows[i]["label"] == item.get("label") else None
            if row is None:
                row = self._row(item)
            parent = next((r for r in reversed(rows) if r["label"] == item.get("parent")), None)
            row.update({"status": item.get("status"), "output": item.get("output"),
                        "failure_reason": item.get("failure_reason"), "position": i,
                        "parent_workflow_run_block_id": parent["workflow_run_block_id"] if parent else None})
            rows.append(row)
        self.rows = rows
        self.worker.runs.replace_blocks(self.run_id, rows)


def _blocks_by_label(blocks: list[Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    stack = list(blocks)
    while stack:
        block = stack.pop()
        if isinstance(block, dict):
            if isinstance(block.get("label"), str):
                out[block["label"]] = block
            stack.extend(block.get("loop_blocks") or [])
    return out


def with_output_parameters(value: Any, workflow: dict[str, Any]) -> Any:
    """A run's outputs as the service reports them: a loop's entries carry the whole stored
    output parameter (``{"parameter_type": "output", "key", "description", "output_parameter_id",
    ...}``) where the engine's normalised trace names it by its key."""
    params = {p.get("key"): p for p in (workflow.get("workflow_definition") or {}).get("parameters") or []
              if isinstance(p, dict) and p.get("parameter_type") == "output"}

    def walk(v: Any) -> Any:
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, dict):
            ref = v.get("output_parameter")
            if isinstance(ref, str) and ref in params and "output_value" in v:
                return {k: (dict(params[ref]) if k == "output_parameter" else walk(x)) for k, x in v.items()}
            return {k: walk(x) for k, x in v.items()}
        return v

    return walk(value) if params else value
