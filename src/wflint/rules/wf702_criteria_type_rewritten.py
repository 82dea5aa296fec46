"""A conditional branch's criteria will not be evaluated the way its ``criteria_type`` says.

**What it checks.** Each ``branch_conditions[].criteria`` of a ``conditional`` block whose
``criteria_type`` is written out: ``jinja2_template`` with an expression that is not exactly
one ``{{ ... }}`` (``amount > 100``, ``{{ a }} is {{ b }}``), and ``prompt`` with an
expression that is exactly one ``{{ ... }}``.

**Why.** The service decides a branch's criteria type by its text when it saves the workflow
(``BranchCondition.validate_condition``): only a lone ``{{ ... }}`` stays
``jinja2_template``, anything else becomes ``prompt``, in both directions. A declared
``jinja2_template`` without braces is therefore sent to an LLM as a natural-language
criterion (``amount > 100`` is asked, not computed, and ``amount`` is not read): an error,
the run ignores what the file says. A declared ``prompt`` that is a lone ``{{ x }}`` is
rendered and read as a truthy string instead of asked: a warning.

**Bad**::

    branch_conditions:
      - criteria: {criteria_type: jinja2_template, expression: "amount > 100"}
        next_block_label: big_order

**Good**::

    branch_conditions:
      - criteria: {criteria_type: jinja2_template, expression: "{{ amount > 100 }}"}
        next_block_label: big_order
"""

import sys

from ..engine.semantics import is_pure_jinja_expression

CODE = "WF702"
NAME = "criteria-type-rewritten"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.blocks_of("conditional"):
        branches = b.data.get("branch_conditions")
        if not isinstance(branches, list):
            continue
        for i, branch in enumerate(branches):
            criteria = branch.get("criteria") if isinstance(branch, dict) else None
            if not isinstance(criteria, dict):
                continue
            declared, expression = criteria.get("criteria_type"), criteria.get("expression")
            if not isinstance(expression, str) or declared not in ("jinja2_template", "prompt"):
                continue
            pure = is_pure_jinja_expression(expression)
            path = b.path + ("branch_conditions", i, "criteria", "expression")
            if declared == "jinja2_template" and not pure:
                yield wf.diag(
                    rule,
                    f"branch {i + 1} of conditional '{b.label}' declares jinja2_template, but its expression is not "
                    "one lone {{ ... }}: the service saves it as a prompt and an LLM judges the text",
                    path,
                    help=f"wrap the whole expression: '{{{{ {_inner(expression)} }}}}'",
                )
            elif declared == "prompt" and pure:
                yield wf.diag(
                    rule,
                    f"branch {i + 1} of conditional '{b.label}' declares prompt, but its expression is one lone "
                    "{{ ... }}: the service saves it as jinja2_template and reads the rendered text as true or false, "
                    "no LLM is asked",
                    path,
                    severity="warning",
                    help="write the criterion in words around the value, or declare jinja2_template",
                )


def _inner(expression: str) -> str:
    """The expression without the braces it has, to wrap it in one pair."""
    text = expression.strip()
    if "{{" in text or "}}" in text:
        return " ".join(text.replace("{{", " ").replace("}}", " ").split())
    return text
