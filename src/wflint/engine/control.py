"""Conditional blocks and loops (``ConditionalBlock``, ``ForLoopBlock``, ``WhileLoopBlock``)."""

from __future__ import annotations

import copy
import json
import random
import string
from dataclasses import dataclass, field
from typing import Any

from . import graph as graphs
from . import io_blocks, prompt_branches, semantics
from .context import OutputParameter
from .display import cap, render_for_display
from .results import BlockResult, Runtime, failed
from .templates import TemplateFailure, render

# --------------------------------------------------------------------------- criteria


def criteria_type(criteria: dict[str, Any], *, branch: bool) -> str:
    """A conditional branch's type is decided by its text; a while condition keeps its own."""
    expression = str(criteria.get("expression") or "")
    if branch:
        return "jinja2_template" if semantics.is_pure_jinja_expression(expression) else "prompt"
    return criteria.get("criteria_type") or "jinja2_template"


def _jinja_criterion(rt: Runtime, label: str, expression: str) -> bool:
    try:
        rendered = render(expression, rt.ctx.namespace(label)) or ""
    except TemplateFailure as exc:
        # ``JinjaBranchCriteria.evaluate`` wraps the renderer's error once more
        raise TemplateFailure(expression, str(exc)) from exc
    return semantics.is_truthy_string(rendered)


def _prompt_results(rt: Runtime, label: str, count: int) -> list[bool]:
    """``_evaluate_prompt_branch_conditions_batch``: the synthetic extraction is asked up to
    twice for one result per criterion (an answer that covers fewer is malformed); the accepted
    answer is recorded under a random ``prompt_branch_eval_…`` key, which later blocks' namespaces
    (and a failed template's ``available_keys``) show."""
    problem = ""
    for _attempt in range(semantics.PROMPT_BRANCH_EVAL_ATTEMPTS):
        results = rt.stubs.prompt_results(label, count)
        given = len(rt.stubs.last_raw_results)
        if given >= count:
            key = "prompt_branch_eval_" + "".join(random.choices(string.ascii_letters + string.digits, k=5))
            rt.ctx.values[key] = prompt_branches.stub_response(rt.stubs.last_raw_results[:count])
            return results
        problem = f"condition_index set {list(range(1, given + 1))} does not cover 1..{count}"
    raise ValueError(f"Conditional branch evaluation failed: {problem}")


def _prompt_batch(rt: Runtime, label: str, criteria: list[dict[str, Any]]) -> tuple[list[str], str]:
    """The criteria as sent (their ``{{ }}`` parts rendered) and the prompt that carries them."""
    rendered, plain_text = [], False
    for item in criteria:
        expression = str(item.get("expression") or "")
        if "{{" in expression:
            try:
                text = render(expression, rt.ctx.namespace(label)) or ""
                rendered.append(prompt_branches.empty_values_explicit(expression, text))
                continue
            except TemplateFailure:
                plain_text = True
        else:
            plain_text = True
        rendered.append(expression)
    context_json = None
    if plain_text:
        snapshot = prompt_branches.context_snapshot(rt.ctx, label, rt.conditional_labels)
        context_json = prompt_branches.snapshot_json(snapshot)
    return rendered, prompt_branches.evaluation_prompt(rendered, context_json)


def conditional(rt: Runtime, block: dict[str, Any]) -> BlockResult:
    label = block["label"]
    branch_list = graphs.branches(block)
    prompt_indexes = [i for i, b in enumerate(branch_list)
                      if b.get("criteria") and criteria_type(b["criteria"], branch=True) == "prompt"]
    prompt_results: dict[int, bool] = {}
    prompt_rendered: dict[int, str] = {}
    batch_error, llm_prompt, llm_response = None, None, None
    if prompt_indexes:
        try:
            rendered, sent = _prompt_batch(rt, label, [branch_list[i]["criteria"] for i in prompt_indexes])
            results = _prompt_results(rt, label, len(prompt_indexes))
            llm_prompt, llm_response = sent, prompt_branches.stub_response(rt.stubs.last_raw_results)
            prompt_results = dict(zip(prompt_indexes, results, strict=False))
            prompt_rendered = dict(zip(prompt_indexes, rendered, strict=False))
        except Exception as exc:  # noqa: BLE001 - the engine records any evaluation error
            batch_error = semantics.PROMPT_BRANCHES_FAILED.format(error=exc)
    matched, first_error, evaluations = None, None, []
    ids = rt.branch_ids(label, len(branch_list))
    for index, branch in enumerate(branch_list):
        criteria = branch.get("criteria") if isinstance(branch.get("criteria"), dict) else None
        kind = criteria_type(criteria, branch=True) if criteria else None
        expression = criteria.get("expression") if criteria else None
        entry = {"branch_id": ids[index], "branch_index": index, "criteria_type": kind, "original_expression": expression,
                 "rendered_expression": None, "result": None, "is_matched": False,
                 "is_default": bool(branch.get("is_default")),
                 "next_block_label": branch.get("next_block_label"), "error": None}
        evaluations.append(entry)
        if criteria is None:
            continue
        if kind == "prompt":
            if batch_error:
                entry["error"] = batch_error
                first_error = first_error or batch_error
                continue
            entry["rendered_expression"] = prompt_rendered.get(index, expression)
            entry["result"] = prompt_results[index]
        else:
            entry["rendered_expression"] = render_for_display(str(expression), rt.ctx.values)
            try:
                entry["result"] = _jinja_criterion(rt, label, str(expression))
            except TemplateFailure as exc:
                entry["error"] = str(exc)
                first_error = first_error or semantics.BRANCH_EVALUATION_FAILED.format(
                    index=index, label=label, error=exc)
                continue
        if entry["result"]:
            entry["is_matched"] = True
            matched = branch
            break
    failure_reason = None
    if matched is None:
        matched = next((b for b in branch_list if b.get("is_default")), None)
        if matched is not None:
            evaluations[branch_list.index(matched)]["is_matched"] = True
        elif first_error is not None:
            failure_reason = first_error
    criteria = matched.get("criteria") if matched is not None and not matched.get("is_default") else None
    next_label = matched.get("next_block_label") if matched is not None else None
    metadata: dict[str, Any] = {
        "branch_taken": next_label,
        "branch_index": branch_list.index(matched) if matched is not None else None,
        "branch_id": ids[branch_list.index(matched)] if matched is not None else None,
        "branch_description": matched.get("description") if matched is not None else None,
        "criteria_type": criteria_type(criteria, branch=True) if criteria else None,
        "criteria_expression": criteria.get("expression") if criteria else None,
        "next_block_label": next_label,
        "evaluations": [
            {**e, "rendered_expression": cap(e["rendered_expression"])} if e["is_matched"]
            else {k: v for k, v in e.items() if k != "rendered_expression"} for e in evaluations],
        "llm_response": llm_response,
        "llm_prompt": cap(llm_prompt),
    }
    if matched is not None and first_error is not None:
        metadata["evaluation_error"] = first_error
    if failure_reason is None and matched is None:
        failure_reason = semantics.NO_BRANCH_MATCHED
    rt.ctx.update_metadata(label, metadata)
    rt.ctx.record_output(label, metadata)
    rt.note_input("branch", next_label if matched is not None else None)
    if failure_reason:
        return failed(failure_reason, metadata)
    return BlockResult("completed", metadata)


# --------------------------------------------------------------------------- loops


@dataclass
class _LoopState:
    outputs: list[list[dict[str, Any]]] = field(default_factory=list)
    results: list[BlockResult] = field(default_factory=list)
    last_block: dict[str, Any] | None = None
    natural: bool = False

    def resolve(self, parent_next_loop_on_failure: bool) -> tuple[str, str | None]:
        """``LoopBlockExecutedResult.resolve_status``."""
        last = self.results[-1] if self.results else None
        can_continue = last is None or last.can_continue
        completed = False
        if last is not None and self.last_block is not None and last.status != "canceled":
            if last.success:
                completed = True
            elif self.natural and not last.synthetic and last.can_continue:
                completed = bool(self.last_block.get("continue_on_failure") or self.last_block.get("next_loop_on_failure"))
        swallow = (parent_next_loop_on_failure and self.natural and last is not None and last.status != "canceled"
                   and not last.synthetic and can_continue)
        if last is not None and last.status == "canceled":
            block = self.last_block or {}
            return "canceled", semantics.LOOP_CHILD_CANCELED.format(
                label=block.get("label") or "", block_type=block.get("block_type") or "")
        if completed or swallow:
            return "completed", None
        reason = last.failure_reason if last is not None else "No block has been executed"
        if last is not None and last.status == "terminated":
            return "terminated", reason
        return "failed", reason


def _run_body(rt: Runtime, loop: dict[str, Any], body: graphs.BlockGraph, state: _LoopState,
              index: int, value: Any, *, with_value: bool) -> bool:
    """One iteration; False when the loop must stop."""
    try:
        return _iterate(rt, loop, body, state, index, value, with_value=with_value)
    finally:
        if index == 0:
            # ``_persist_partial_loop_output``: the loop's output row is written after its first
            # pass, which is where the run's outputs list it (the value is set when it ends)
            rt.ctx.recorded.setdefault(f"{loop['label']}_output", None)


def _iterate(rt: Runtime, loop: dict[str, Any], body: graphs.BlockGraph, state: _LoopState,
             index: int, value: Any, *, with_value: bool) -> bool:
    label = loop["label"]
    each: list[dict[str, Any]] = []
    steps, current, cond_seen = 0, body.start, set()
    meta_value = value if with_value else None
    while current:
        child = body.blocks.get(current)
        if child is None:
            state.results.append(failed(f"Unable to find block with label {current} inside loop {label}", synthetic=True))
            state.outputs.append(each)
            return False
        metadata = {"current_index": index, "current_value": meta_value, "current_item": meta_value}
        rt.ctx.update_metadata(label, metadata)
        rt.ctx.update_metadata(current, metadata)
        state.last_block = child
        scope = body.scopes.get(current)
        parent = scope if scope in cond_seen else label
        result = rt.execute(copy.deepcopy(child), parent, index, str(value) if with_value else None)
        if graphs.is_conditional(child):
            cond_seen.add(current)
        key = f"{current}_output"
        entry = {"output_parameter": OutputParameter(key), "output_value": rt.ctx.values.get(key)}
        each.append({"loop_value": value, **entry} if with_value else entry)
        state.results.append(result)
        if result.status == "canceled":
            state.outputs.append(each)
            return False
        if not result.success and (not result.can_continue or (
                not child.get("continue_on_failure") and not child.get("next_loop_on_failure")
                and not loop.get("next_loop_on_failure"))):
            state.outputs.append(each)
            return False
        steps += 1
        if steps >= semantics.MAX_STEPS_PER_ITERATION:
            reason = semantics.MAX_STEPS_REACHED.format(limit=semantics.MAX_STEPS_PER_ITERATION)
            state.results.append(failed(reason, synthetic=True))
            if not loop.get("next_loop_on_failure"):
                state.outputs.append(each)
                return False
            break
        if result.success or (child.get("continue_on_failure") and result.can_continue):
            if graphs.is_conditional(child):
                next_label = (result.output or {}).get("next_block_label") if isinstance(result.output, dict) else None
            else:
                next_label = body.next_map.get(current)
            if not next_label:
                break
            if next_label not in body.blocks:
                state.results.append(failed(f"Next block label {next_label} not found inside loop {label}", synthetic=True))
                state.outputs.append(each)
                return False
            current = next_label
            continue
        break  # next_loop_on_failure: on to the next iteration
    state.outputs.append(each)
    return True


def loop_values(rt: Runtime, loop: dict[str, Any]) -> list[Any]:
    """``get_loop_over_parameter_values``; raises when the engine cannot get them."""
    label = loop["label"]
    reference = loop.get("loop_variable_reference")
    if reference:
        value = _reference_value(rt, label, str(reference))
    elif loop.get("loop_over_parameter_key"):
        value = rt.ctx.values.get(loop["loop_over_parameter_key"])
        if isinstance(value, dict) and "extracted_information" in value:
            value = value["extracted_information"]
    elif loop.get("complete_if_empty"):
        return []
    else:
        raise ValueError(semantics.NO_ITERABLE_VALUE)
    return value if isinstance(value, list) else [value]


def _reference_value(rt: Runtime, label: str, reference: str) -> Any:
    namespace = rt.ctx.namespace(label)
    stripped = reference.strip(" {}")
    for path in (stripped, f"{stripped}.extracted_information", f"{stripped}.extracted_information.results",
                 f"{stripped}.results"):
        try:
            value = json.loads(render(f"{{{{ {path.strip(' {}')} | tojson }}}}", namespace) or "null")
        except (TemplateFailure, ValueError):
            continue
        if value is not None:
            return value
    if "extracted_information." not in reference:
        # The engine now reads the text as a natural-language request: a synthetic extraction
        # task (its label random, so no stub reaches it) asks the open page for the values and
        # gets none; its task output becomes the loop row's output.
        raise UnresolvedLoopInput(_synthetic_extraction(rt))
    value = json.loads(render(f"{{{{ {stripped} | tojson }}}}", namespace) or "null")
    return value


class UnresolvedLoopInput(ValueError):
    """``Loop input could not be resolved.``, with what the synthetic extraction left on the row."""

    def __init__(self, row_output: Any) -> None:
        super().__init__("Loop input could not be resolved.")
        self.row_output = row_output


def _synthetic_extraction(rt: Runtime) -> Any:
    """``_create_initial_extraction_block`` run as a task: a task row, the page that is open
    (none yet: the run's browser opens on a blank page and the task fails for want of a URL)."""
    rt.tasks_created += 1
    if rt.browser_open and rt.page_url not in ("about:blank", ""):
        return io_blocks.task_output("completed", {})
    rt.browser_open = True
    return None


def for_loop(rt: Runtime, loop: dict[str, Any]) -> BlockResult:
    label = loop["label"]
    try:
        values = loop_values(rt, loop)
    except UnresolvedLoopInput as exc:
        return failed(semantics.LOOP_VALUES_FAILED, exc.row_output)
    except Exception:  # noqa: BLE001 - the engine turns any of these into one reason
        return failed(semantics.LOOP_VALUES_FAILED)
    rt.note_input("loop_values", values)
    if not values:
        rt.ctx.record_output(label, [])
        if loop.get("complete_if_empty"):
            return BlockResult("completed", [])
        return BlockResult("terminated", None, semantics.NO_ITERABLE_VALUE)
    body, ended = _body(rt, loop, "Loop graph validation failed.")
    if ended is not None:
        return ended
    state = _LoopState()
    for index, value in enumerate(values):
        if not _may_pass(state, index) or not _run_body(rt, loop, body, state, index, value, with_value=True):
            break
    else:
        state.natural = True
    return _finish(rt, loop, state)


def _body(rt: Runtime, loop: dict[str, Any], graph_failure: str) -> tuple[Any, BlockResult | None]:
    """(the loop body's graph, None), or (None, the result that ends the loop before a pass):
    no child blocks terminates it with an empty output, a body whose routing does not hold
    fails it with ``graph_failure`` (the for and the while loop word it differently)."""
    children = [c for c in loop.get("loop_blocks") or [] if isinstance(c, dict)]
    if not children:
        rt.ctx.record_output(loop["label"], [])
        return None, BlockResult("terminated", None, semantics.NO_LOOP_BLOCKS)
    try:
        return graphs.build(children, loop["label"]), None
    except graphs.GraphError:
        return None, failed(graph_failure)


def _may_pass(state: _LoopState, index: int) -> bool:
    """Whether pass ``index`` may start: both loops stop at the engine's iteration cap, recording
    the synthetic failure its reason names."""
    if index < semantics.MAX_LOOP_ITERATIONS:
        return True
    reason = semantics.MAX_ITERATIONS_REACHED.format(limit=semantics.MAX_LOOP_ITERATIONS)
    state.results.append(failed(reason, synthetic=True))
    return False


def _finish(rt: Runtime, loop: dict[str, Any], state: _LoopState) -> BlockResult:
    rt.ctx.record_output(loop["label"], state.outputs)
    status, reason = state.resolve(bool(loop.get("next_loop_on_failure")))
    last = state.results[-1] if state.results else None
    return BlockResult(status, state.outputs, reason, can_continue=last is None or last.can_continue)


def while_loop(rt: Runtime, loop: dict[str, Any]) -> BlockResult:
    label = loop["label"]
    body, ended = _body(rt, loop, "While-loop graph validation failed.")
    if ended is not None:
        return ended
    condition = loop.get("condition") if isinstance(loop.get("condition"), dict) else {}
    state, index = _LoopState(), 0
    while True:
        rt.ctx.update_metadata(label, {"current_index": index, "current_value": None, "current_item": None})
        try:
            if criteria_type(condition, branch=False) == "prompt":
                go = _prompt_results(rt, label, 1)[0]
            else:
                go = _jinja_criterion(rt, label, str(condition.get("expression") or ""))
        except Exception:  # noqa: BLE001 - any evaluation error fails the loop
            state.results.append(failed("Failed to evaluate while-loop condition."))
            break
        if not go:
            state.natural = True
            break
        if not _may_pass(state, index) or not _run_body(rt, loop, body, state, index, None, with_value=False):
            break
        index += 1
    if not state.results:
        rt.ctx.record_output(label, state.outputs)
        return BlockResult("completed", state.outputs)
    return _finish(rt, loop, state)
