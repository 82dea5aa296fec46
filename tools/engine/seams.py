"""The five seams that let the real 1.0.56 engine run offline (service-runs.md §3).

Runs INSIDE the skyvern-1.0.56 virtual environment (imported by ``real_engine.py``), after the
embedded app has booted (``app.BROWSER_MANAGER`` and the LLM handlers exist only then).

A case's stub table (``Stubs``) decides what the browser, the agent step and the LLM return:

* block seam   - ``blocks[label]``: any block's ``execute`` is replaced by recording the stub's
                 output and returning its status; everything around ``execute`` stays real;
* task seam    - ``tasks[label]``: the real task-block code runs (retries, TaskOutput shape) with
                 a fake browser and ``app.agent.execute_step`` writing the final task row;
* code browser - code blocks get the same fake browser (its page accepts anything);
* LLM          - every LLM handler is a stub answering ``llm[label]`` for ``text_prompt``;
* prompt branches - the synthetic extraction block that evaluates natural-language branch
                 criteria answers ``prompt_branches[label]``.

Names patched here are private to 1.0.56; re-check them on an upgrade.
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
from typing import Any

# the label of the block whose execute is running (innermost); the LLM and prompt-branch stubs
# use it to find their entry
CURRENT_LABEL: contextvars.ContextVar[str | None] = contextvars.ContextVar("wflint_current_label", default=None)

NO_STUB = object()


class Stubs:
    """One case's stub table, with per-label counters: a list is consumed one entry per execution
    (loop iteration or retry); when it runs out, its last entry repeats."""

    def __init__(self, case: dict[str, Any] | None = None) -> None:
        case = case or {}
        self.blocks: dict[str, Any] = dict(case.get("blocks") or {})
        self.tasks: dict[str, Any] = dict(case.get("tasks") or {})
        self.llm: dict[str, Any] = dict(case.get("llm") or {})
        self.prompt_branches: dict[str, Any] = dict(case.get("prompt_branches") or {})
        # seconds a block waits before it executes, by label or "*" (serve mode, for polling tests)
        self.delays: dict[str, Any] = dict(case.get("delays") or {})
        self.counts: dict[tuple[str, str], int] = {}
        self.llm_prompts: list[dict[str, str]] = []
        self.unstubbed: list[str] = []

    def take(self, kind: str, label: str, *, per_execution_lists: bool = True) -> Any:
        table = getattr(self, kind)
        if label not in table:
            return NO_STUB
        entry = table[label]
        if not per_execution_lists or not isinstance(entry, list):
            return copy.deepcopy(entry)
        if not entry:
            return NO_STUB
        n = self.counts.get((kind, label), 0)
        self.counts[(kind, label)] = n + 1
        return copy.deepcopy(entry[min(n, len(entry) - 1)])


STUBS = Stubs()

#: serve mode: finds the stub table of the running workflow (async, given the run's context);
#: batch mode leaves it None and every run uses STUBS, the current case's
RESOLVER: Any = None
_PER_RUN: dict[str, Stubs] = {}


def set_case(case: dict[str, Any] | None) -> Stubs:
    global STUBS
    STUBS = Stubs(case)
    return STUBS


async def current() -> Stubs:
    """The stubs of the run being executed."""
    if RESOLVER is None:
        return STUBS
    from skyvern.forge.sdk.core import skyvern_context

    ctx = skyvern_context.current()
    run_id = getattr(ctx, "workflow_run_id", None) or "-"
    if run_id not in _PER_RUN:
        if len(_PER_RUN) > 1000:
            _PER_RUN.clear()
        _PER_RUN[run_id] = Stubs(await RESOLVER(getattr(ctx, "workflow_permanent_id", None)))
    return _PER_RUN[run_id]


# --------------------------------------------------------------------------- fake browser


class Anything:
    """A permissive stand-in: every attribute, call and await gives another one."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Anything()

    def __call__(self, *args: Any, **kwargs: Any) -> Anything:
        return Anything()

    def __await__(self):
        if False:  # pragma: no cover - makes this a generator
            yield
        return Anything()

    async def __aenter__(self) -> Anything:
        return self

    async def __aexit__(self, *exc: Any) -> bool:
        return False

    def __iter__(self):
        return iter(())

    def __bool__(self) -> bool:
        return True

    def __str__(self) -> str:
        return ""


class FakePage(Anything):
    def __init__(self) -> None:
        self.url = "about:blank"

    async def goto(self, url: str, *args: Any, **kwargs: Any) -> None:
        self.url = url

    async def title(self) -> str:
        return ""

    async def content(self) -> str:
        return "<html></html>"

    async def screenshot(self, *args: Any, **kwargs: Any) -> bytes:
        return b""

    def is_closed(self) -> bool:
        return False


class FakeArtifacts(Anything):
    def __init__(self) -> None:
        from skyvern.webeye.browser_artifacts import DownloadBinding

        self.download_binding = DownloadBinding.RUN_DIR
        self.applied_browser_profile_id = None
        self.video_artifacts = []
        self.har_path = None
        self.traces_dir = None
        self.browser_session_dir = None
        self.browser_console_log_path = None


class FakeBrowserState(Anything):
    """One per run: remembers the page URL, because a later task without a ``url`` inherits it."""

    def __init__(self) -> None:
        self.page = FakePage()
        self.browser_artifacts = FakeArtifacts()
        self.browser_context = Anything()
        self.browser_cleanup = None
        self.pw = None
        self.engine_selection = None
        self.browser_context_route_policy_url = None

    async def must_get_working_page(self) -> FakePage:
        return self.page

    async def get_working_page(self) -> FakePage:
        return self.page

    async def get_or_create_page(self, *args: Any, **kwargs: Any) -> FakePage:
        return self.page

    async def navigate_to_url(self, page: Any = None, url: str = "", *args: Any, **kwargs: Any) -> None:
        self.page.url = url

    async def check_and_fix_state(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def take_fullpage_screenshot(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def take_post_action_screenshot(self, *args: Any, **kwargs: Any) -> None:
        return None

    async def close(self, *args: Any, **kwargs: Any) -> None:
        return None

    def is_connected(self) -> bool:
        return True

    async def list_valid_pages(self, *args: Any, **kwargs: Any) -> list:
        return [self.page]


BROWSERS: dict[str, FakeBrowserState] = {}


def _browser_for(run_id: str | None) -> FakeBrowserState:
    key = run_id or "-"
    if key not in BROWSERS:
        BROWSERS[key] = FakeBrowserState()
    return BROWSERS[key]


# --------------------------------------------------------------------------- installing


def install() -> None:
    from skyvern.forge import app

    _install_browser(app)
    _install_llm(app)
    _install_agent_step(app)
    _install_block_seam()


def _install_browser(app: Any) -> None:
    manager = app.BROWSER_MANAGER

    async def get_or_create_for_workflow_run(workflow_run: Any = None, url: str | None = None, *a: Any, **k: Any):
        state = _browser_for(getattr(workflow_run, "workflow_run_id", None))
        if url and state.page.url == "about:blank":
            state.page.url = url
        return state

    def get_for_workflow_run(workflow_run_id: str | None = None, *a: Any, **k: Any):
        return BROWSERS.get(workflow_run_id or "-")

    async def get_or_create_for_task(task: Any = None, *a: Any, **k: Any):
        return _browser_for(getattr(task, "workflow_run_id", None))

    def get_for_task(task_id: str | None = None, workflow_run_id: str | None = None, *a: Any, **k: Any):
        return BROWSERS.get(workflow_run_id or "-")

    async def cleanup_for_workflow_run(workflow_run_id: str | None = None, *a: Any, **k: Any):
        from skyvern.webeye.browser_manager import BrowserCleanupResult

        BROWSERS.pop(workflow_run_id or "-", None)
        return BrowserCleanupResult(browser_state=None, recording_finalized=False)

    async def cleanup_for_task(task_id: str | None = None, *a: Any, **k: Any):
        return None

    for name, fn in {
        "get_or_create_for_workflow_run": get_or_create_for_workflow_run,
        "get_for_workflow_run": get_for_workflow_run,
        "get_or_create_for_task": get_or_create_for_task,
        "get_for_task": get_for_task,
        "cleanup_for_workflow_run": cleanup_for_workflow_run,
        "cleanup_for_task": cleanup_for_task,
    }.items():
        setattr(manager, name, fn)

    from skyvern.forge.sdk.workflow.models import block as block_module

    async def code_block_browser(self: Any, workflow_run_id: str, *a: Any, **k: Any):
        return _browser_for(workflow_run_id)

    block_module.CodeBlock.get_or_create_browser_state = code_block_browser


class LLMStubError(Exception):
    pass


async def llm_stub(prompt: str = "", prompt_name: str | None = None, *args: Any, **kwargs: Any) -> Any:
    if prompt_name == "generate-workflow-run-block-description":
        return {}
    label = CURRENT_LABEL.get() or "?"
    stubs = await current()
    stubs.llm_prompts.append({"label": label, "prompt": prompt})
    answer = stubs.take("llm", label)
    if answer is NO_STUB:
        stubs.unstubbed.append(f"llm:{label}")
        raise LLMStubError(f"no llm stub for {label}")
    if isinstance(answer, dict) and set(answer) == {"raise"}:
        raise LLMStubError(str(answer["raise"]))
    if isinstance(answer, str):
        return {"llm_response": answer}
    return answer


def _install_llm(app: Any) -> None:
    from skyvern.forge.sdk.api.llm.api_handler_factory import LLMAPIHandlerFactory

    LLMAPIHandlerFactory.get_override_llm_api_handler = staticmethod(lambda *a, **k: llm_stub)
    app.LLM_API_HANDLER = llm_stub
    app.SECONDARY_LLM_API_HANDLER = llm_stub
    for name in ("SINGLE_CLICK_AGENT_LLM_API_HANDLER", "EXTRACTION_LLM_API_HANDLER", "CHECK_USER_GOAL_LLM_API_HANDLER"):
        if hasattr(app, name):
            setattr(app, name, llm_stub)


def _install_agent_step(app: Any) -> None:
    from skyvern.forge.sdk.schemas.tasks import TaskStatus

    async def execute_step(*args: Any, task: Any = None, task_block: Any = None, organization: Any = None, **kwargs: Any):
        label = getattr(task_block, "label", None) or "?"
        stubs = await current()
        stub = stubs.take("tasks", label)
        if stub is NO_STUB:
            stubs.unstubbed.append(f"task:{label}")
            stub = {"status": "completed"}
        await app.DATABASE.tasks.update_task(
            task.task_id,
            status=TaskStatus(stub.get("status", "completed")),
            extracted_information=stub.get("extracted_information"),
            failure_reason=stub.get("failure_reason"),
            errors=stub.get("errors"),
            organization_id=task.organization_id,
        )
        return None

    app.agent.execute_step = execute_step


def _all_block_classes() -> list[type]:
    from skyvern.forge.sdk.workflow.models import block as block_module

    seen: list[type] = []
    todo = [block_module.Block]
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.append(cls)
        todo.extend(cls.__subclasses__())
    return seen


def _install_block_seam() -> None:
    # import every module that defines blocks, so their classes are subclasses by now
    import importlib

    for mod in ("terminate_block", "data_export_block", "email_inbox_block", "google_sheets_blocks",
                "pdf_fill_block", "split_pdf_block", "web_search_block"):
        try:
            importlib.import_module(f"skyvern.forge.sdk.workflow.models.{mod}")
        except Exception:  # noqa: BLE001 - an optional block module that cannot import is not ours
            pass
    for cls in _all_block_classes():
        if "execute" in cls.__dict__ and not getattr(cls.__dict__["execute"], "_wflint_seam", False):
            cls.execute = _wrap_execute(cls.__dict__["execute"])


def _wrap_execute(original: Any) -> Any:
    async def execute(self: Any, workflow_run_id: str, workflow_run_block_id: str, *args: Any, **kwargs: Any):
        label = getattr(self, "label", None)
        if isinstance(label, str) and label.startswith("prompt_branch_eval_"):
            return await _prompt_branch_result(self)
        stubs = await current()
        delay = stubs.delays.get(label, stubs.delays.get("*")) if label else None
        if delay:
            await asyncio.sleep(float(delay))
        stub = stubs.take("blocks", label) if label else NO_STUB
        if stub is NO_STUB:
            token = CURRENT_LABEL.set(label)
            try:
                return await original(self, workflow_run_id, workflow_run_block_id, *args, **kwargs)
            finally:
                CURRENT_LABEL.reset(token)
        return await _stubbed_result(self, workflow_run_id, workflow_run_block_id,
                                     kwargs.get("organization_id", args[0] if args else None), stub)

    execute._wflint_seam = True  # type: ignore[attr-defined]
    execute.__wrapped__ = original  # type: ignore[attr-defined]
    return execute


async def _stubbed_result(block: Any, run_id: str, run_block_id: str, organization_id: str | None, stub: Any) -> Any:
    from skyvern.schemas.workflows import BlockStatus

    if not isinstance(stub, dict):
        stub = {"output": stub}
    status = stub.get("status") or ("failed" if "fail" in stub else "completed")
    reason = stub.get("fail", stub.get("failure_reason"))
    ctx = block.get_workflow_run_context(run_id)
    if "output" in stub or status == "completed":
        await block.record_output_parameter_value(ctx, run_id, stub.get("output"))
    return await block.build_block_result(
        success=status == "completed",
        failure_reason=reason,
        output_parameter_value=stub.get("output"),
        status=BlockStatus(status),
        workflow_run_block_id=run_block_id,
        organization_id=organization_id,
    )


async def _prompt_branch_result(extraction_block: Any) -> Any:
    """The synthetic extraction block that asks the LLM about natural-language branches answers
    from ``prompt_branches[<conditional or while label>]``: a list of booleans (one per prompt
    branch, in order), or a list of such lists consumed one per evaluation; for a while loop a
    list of booleans is consumed one per evaluation."""
    from skyvern.schemas.workflows import BlockResult, BlockStatus

    owner = CURRENT_LABEL.get() or "?"
    n = _branch_count(extraction_block)
    stubs = await current()
    entry = stubs.prompt_branches.get(owner, NO_STUB)
    if entry is NO_STUB:
        stubs.unstubbed.append(f"prompt_branches:{owner}")
        results = [False] * n
    elif isinstance(entry, bool):
        results = [entry] * n
    elif isinstance(entry, list) and entry and all(isinstance(x, list) for x in entry):
        results = stubs.take("prompt_branches", owner)
    elif isinstance(entry, list) and n == 1 and len(entry) != 1:
        results = [stubs.take("prompt_branches", owner)]
    else:
        results = list(entry)
    evaluations = [{"condition_index": i + 1, "reasoning": "stub", "result": bool(r)} for i, r in enumerate(results)]
    value = {"evaluations": evaluations}
    return BlockResult(success=True, output_parameter=extraction_block.output_parameter,
                       output_parameter_value=value, status=BlockStatus.completed)


def _branch_count(extraction_block: Any) -> int:
    schema = getattr(extraction_block, "data_schema", None) or {}
    try:
        return int(schema["properties"]["evaluations"]["minItems"])
    except (KeyError, TypeError, ValueError):
        pass
    goal = getattr(extraction_block, "data_extraction_goal", "") or ""
    import re

    found = re.findall(r"Condition (\d+)", goal)
    return max((int(x) for x in found), default=1)
