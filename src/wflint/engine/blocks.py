"""Blocks that run without a browser: code, wait, terminate, and the block-seam stub.

The HTTP, LLM and agent blocks live in ``io_blocks``; conditionals and loops in ``control``.
Each function takes the runtime and the block (a dict as posted) and returns a
:class:`BlockResult`, recording output in the run context the way the engine's block does.
"""

from __future__ import annotations

from typing import Any

from . import code_policy, semantics
from .results import BlockResult, Runtime, failed
from .templates import TemplateFailure, TemplateStopped, render, render_code


def template_failure(rt: Runtime, label: str, exc: TemplateFailure, reason: str, **kw: Any) -> BlockResult:
    """``_template_format_failure_result``: the block fails and records what went wrong. A
    template wflint stopped gives its own reason: the engine would still be working on it."""
    if isinstance(exc, TemplateStopped):
        reason = str(exc)
    output: dict[str, Any] = {"failure_reason": reason}
    if exc.available_keys:
        output["available_keys"] = exc.available_keys
    rt.ctx.record_output(label, output)
    return failed(reason, output, **kw)


def stubbed(rt: Runtime, block: dict[str, Any], stub: Any) -> BlockResult:
    """The block seam: the stub decides output and status; nothing of the block runs. The
    output is recorded when the stub gives one or the block completes."""
    label = block["label"]
    if not isinstance(stub, dict):
        stub = {"output": stub}
    status = stub.get("status") or ("failed" if "fail" in stub else "completed")
    reason = stub.get("fail", stub.get("failure_reason"))
    if "output" in stub or status == "completed":
        rt.ctx.record_output(label, stub.get("output"))
    return BlockResult(str(status), stub.get("output"), reason)


def wait(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    # The simulator does not sleep: a run's timeline, not its wall time, is what it reports.
    rt.note_input("wait_sec", block.get("wait_sec"))
    output = {"success": True}
    rt.ctx.record_output(block["label"], output)
    return BlockResult("completed", output)


def terminate(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    label = block["label"]
    namespace = rt.ctx.namespace(label)
    try:
        reason = render(block.get("reason") or "", namespace) or ""
    except TemplateFailure as exc:
        return template_failure(rt, label, exc, str(exc))
    code, dropped = "", False
    if block.get("error_code"):
        try:
            code = (render(block["error_code"], namespace) or "").strip()
        except TemplateFailure:
            code, dropped = "", True
        if code and not semantics.usable_error_code(code):
            code, dropped = "", True
    if not reason.strip():
        reason = f"Terminated by the {label} block"
    if dropped:
        reason += " Error code was dropped because it was unusable after rendering."
    rt.note_input("reason", reason)
    output: dict[str, Any] = {"reason": reason}
    if dropped:
        output["error_code_dropped"] = True
    rt.ctx.record_output(label, output)
    errors = [{"error_code": code, "reasoning": reason, "confidence_float": 1.0}] if code else []
    return BlockResult("terminated", output, reason, error_codes=[code] if code else [], errors=errors)


def code(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    label = block["label"]
    rt.browser_open = True  # a code block gets the run's browser before anything else
    try:
        source = render_code(block.get("code") or "", rt.ctx.namespace(label))
    except TemplateFailure as exc:
        return template_failure(rt, label, exc, semantics.CODE_FORMAT_FAILED, can_continue=False)
    rt.note_input("code", source)
    params = {key: rt.ctx.values.get(key) for key in _parameter_keys(block)}
    # ``generate_async_user_function``: the policy, then ErrorCode's call shapes, then exec
    try:
        refusal = code_policy.refusal(source)
    except SyntaxError:
        refusal = None  # the worker reports the SyntaxError as the engine words it
    if refusal is not None:
        rt.note_input("refused", refusal)
        return failed(semantics.CODE_INSECURE)
    _raises, problem = semantics.error_code_raises(source)
    if problem is not None:
        reason = semantics.CODE_SYNTAX_ERROR.format(message=problem[0])
        # recorded for later blocks, but the raise happens before a result carries it
        rt.ctx.record_output(label, {"status": "failed", "failure_reason": reason, "errors": []})
        return failed(reason)
    answer = rt.run_code(source, params)
    if answer.get("kind") not in ("insecure", "error_code_args"):
        rt.tasks_created += 1  # ``create_task_and_step``: the code's actions are recorded as a task
    if answer.get("printed"):
        rt.note_input("printed", "".join(answer["printed"]))
    if answer.get("ok"):
        result = answer.get("result")
        rt.ctx.record_output(label, result)
        return BlockResult("completed", result)
    kind = answer.get("kind")
    if kind == "insecure":
        rt.note_input("refused", answer.get("message"))
        return failed(semantics.CODE_INSECURE)
    if kind == "timeout":
        return failed(semantics.CODE_TIMEOUT.format(seconds=semantics.CODE_TIMEOUT_SECONDS))
    if kind == "error_code":
        return _declared_error(rt, block, answer)
    reason = semantics.CODE_FAILED.format(exc_type=answer.get("type"), message=answer.get("message"))
    return failed(reason[:semantics.CODE_FAILURE_REASON_MAX_CHARS])


def _declared_error(rt: Runtime, block: dict[str, Any], answer: dict[str, Any]) -> BlockResult:
    """``CodeBlock._extract_declared_error``: only a direct ``raise ErrorCode(...)`` of a code in
    the effective mapping (block entries over the workflow's) is the author's declared error."""
    code_name, reasoning = answer.get("error_code"), str(answer.get("reasoning") or "")
    mapping = {**rt.workflow_error_mapping, **(block.get("error_code_mapping") or {})}
    if code_name not in mapping:
        return failed(semantics.CODE_ERROR_CODE_UNDECLARED)
    reasoning = "".join(c for c in reasoning if c.isprintable() or c in " ").strip()
    if not answer.get("direct") or not reasoning:
        return failed("Failed to execute code block. Reason: ErrorCode: CodeBlock raised a declared error")
    error = {"error_code": code_name, "reasoning": reasoning, "confidence_float": 1.0,
             "error_type": "USER_DEFINED_ERROR"}
    output = {
        "status": "failed", "failure_reason": reasoning, "errors": [error],
        "failure_category": [{"category": code_name, "confidence_float": 1.0, "reasoning": reasoning}],
        "declared_error_code": code_name,
    }
    rt.ctx.record_output(block["label"], output)
    return failed(reasoning, output, error_codes=[code_name], errors=[error])


def _parameter_keys(block: dict[str, Any]) -> list[str]:
    keys = block.get("parameter_keys") or []
    return [k for k in keys if isinstance(k, str)]


def not_simulated(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    """A block that needs a browser, an LLM or an outside service and has no stub: it completes
    with a null output (documented in docs/simulate.md); stub it to decide otherwise."""
    rt.stubs.unstubbed.append(f"block:{block['label']}")
    rt.ctx.record_output(block["label"], None)
    return BlockResult("completed", None)
