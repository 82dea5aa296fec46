"""What the engine sends the LLM to decide natural-language branch criteria, and what it keeps.

``_evaluate_prompt_branch_conditions_batch`` renders the release's prompt template
``conditional-prompt-branch-evaluation.j2`` (below, as 1.0.56 ships it: the text is the
engine's, reproduced so a conditional's ``llm_prompt`` output matches) with the criteria, and,
when a criterion is plain text, a JSON snapshot of the run's values
(``BranchEvaluationContext.build_llm_safe_context_snapshot``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from jinja2 import Environment

from .context import RunContext

#: conditional-prompt-branch-evaluation.j2 of skyvern 1.0.56
TEMPLATE = 'Evaluate if the following condition(s) are TRUE or FALSE.\n\nCRITICAL RULE: If all the data needed to evaluate a condition is already present in the condition text, you MUST evaluate it using ONLY the condition text. Do NOT reference the page content. Only use the page content (screenshot/HTML) when the condition explicitly asks about what is on the page (e.g., "the date in the page", "the column under payments section").\n\nEach condition is ONE expression. If a condition contains "and"/"or" or repeated "if" clauses (e.g., "If A and if B"), evaluate the whole expression using logical operators and return ONE result. Do NOT split a condition into multiple sub-results. You MUST return exactly {{ conditions|length }} {{ \'result\' if conditions|length == 1 else \'results\' }}, one per numbered condition, in the same order.\n\n{% if conditions|length == 1 %}\nCondition: {{ conditions[0] }}\n{% else %}\n{% for condition in conditions %}\nCondition {{ loop.index }}: {{ condition }}\n{% endfor %}\n{% endif %}\n{% if context_json %}\n\nUse this context to understand variable values:\n{{ context_json }}\n{% endif %}\n\nReturn exactly {{ conditions|length }} evaluation object{{ \'\' if conditions|length == 1 else \'s\' }} — one per numbered condition, covering every condition_index from 1 to {{ conditions|length }} exactly once. Do not merge, skip, or add conditions. For each condition, provide IN THIS ORDER:\n1. "condition_index": The 1-based number of the condition this object evaluates (Condition 1 -> 1, Condition 2 -> 2, ...).\n2. "reasoning": Explain your reasoning for evaluating the condition. Compare the actual values.\n3. "result": The boolean result (true/false) based on the condition.\n'

_TEMPLATE = Environment().from_string(TEMPLATE)
_SKIPPED = frozenset({"blocks_metadata", "params", "outputs", "environment", "env", "llm", "workflow_title",
                      "workflow_id", "workflow_permanent_id", "workflow_run_id"})
_DEBUG_FIELDS = frozenset({"llm_prompt", "llm_response", "evaluations"})
_OPENER, _CLOSER = re.compile(r"\{(?=[{%#])"), re.compile(r"(?<=[}%#])\}")


def _neutralise(value: Any) -> Any:
    if isinstance(value, str):
        return _CLOSER.sub(" }", _OPENER.sub("{ ", value))
    if isinstance(value, dict):
        return {k: _neutralise(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_neutralise(v) for v in value]
    return value


def context_snapshot(ctx: RunContext, label: str, conditional_labels: set[str]) -> dict[str, Any]:
    aliases = set(ctx.run_outputs)
    conditional_keys = {f"{c}_output" for c in conditional_labels} | (conditional_labels & aliases)
    snapshot: dict[str, Any] = {}
    for key, value in ctx.values.items():
        if key in _SKIPPED or key.startswith("prompt_branch_eval_"):
            continue
        if isinstance(value, dict) and "extracted_information" in value:
            if value.get("extracted_information") is not None:
                snapshot[key] = value["extracted_information"]
        elif key in conditional_keys and isinstance(value, dict):
            snapshot[key] = {f: v for f, v in value.items() if f not in _DEBUG_FIELDS}
        else:
            snapshot[key] = value
    for alias in aliases:
        output_key = f"{alias}_output"
        if alias in snapshot and output_key in snapshot and snapshot[alias] == snapshot[output_key]:
            del snapshot[alias]
    meta = ctx.metadata.get(label) or {}
    for key in ("current_value", "current_index", "current_item"):
        if key in meta:
            snapshot[key] = meta[key]
    return _neutralise(snapshot)


def evaluation_prompt(conditions: list[str], context_json: str | None) -> str:
    return _TEMPLATE.render(conditions=conditions, context_json=context_json)


def stub_response(results: list[bool]) -> dict[str, Any]:
    """The LLM's answer as the stubbed evaluation gives it, kept as the conditional's ``llm_response``."""
    return {"evaluations": [{"condition_index": i + 1, "reasoning": "stub", "result": bool(r)}
                            for i, r in enumerate(results)]}


def snapshot_json(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot, default=str)


#: ``_EMPTY_VALUE_MARKER``: what the LLM reads where a criterion's ``{{ }}`` rendered empty
EMPTY_VALUE_MARKER = "(empty value)"
_JINJA_BLOCK = re.compile(r"\{\{(.*?)\}\}")


def empty_values_explicit(original: str, rendered: str) -> str:
    """``_make_empty_params_explicit``: each ``{{ }}`` of a natural-language criterion that
    rendered to blank text is replaced by a marker, so the LLM sees that it was empty. The text
    around the ``{{ }}`` anchors each value; adjacent ``{{ }}`` (no text between) are left as rendered."""
    parts = _JINJA_BLOCK.split(original)
    if "{{" not in original or len(parts) <= 1:
        return rendered
    statics = parts[0::2]
    count = len(parts) // 2
    if count > 1 and any(static == "" for static in statics[1:-1]):
        return rendered
    pattern = "".join(re.escape(static) + ("(.*?)" if i < count else "") for i, static in enumerate(statics))
    match = re.match("^" + pattern + "$", rendered, re.DOTALL)
    if not match or all(value.strip() for value in match.groups()):
        return rendered
    values = match.groups()
    return "".join(static + ((values[i] if values[i].strip() else EMPTY_VALUE_MARKER) if i < len(values) else "")
                   for i, static in enumerate(statics))
