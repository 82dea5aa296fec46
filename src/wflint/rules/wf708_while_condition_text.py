"""A ``while_loop`` condition declared (or defaulting to) ``jinja2_template`` that is not one
lone ``{{ ... }}``: the loop tests the text, not the expression.

**What it checks.** The ``condition`` of every ``while_loop`` whose ``criteria_type`` is
``jinja2_template`` (the default) and whose expression is not exactly one ``{{ ... }}``.

**Why.** Unlike a conditional's branches, a while loop's condition keeps its declared type
(``workflow_definition_converter.py``), and the engine renders it and reads the result as a
truthy string (``_evaluate_truthy_string``: ``""``, ``false``, ``0``, ``no``, ``n``, ``off``,
``null``, ``none`` are false, any other text true). Brace-less text such as
``attempts < 3`` renders as itself, which is true every time: the loop runs until the
engine's limit and then fails the block ("Reached max_loop_iterations limit of 1000"), an
error. Text that renders to a false word never runs the body (a warning), and text mixing
``{{ }}`` with other words (``{{ n }} < 3``) is true whatever the values (a warning: only a
value rendering to nothing or a false word stops it).

**Bad**::

    - block_type: while_loop
      label: retry
      condition: {expression: "attempts < 3"}
      loop_blocks: [...]

**Good**::

    - block_type: while_loop
      label: retry
      condition: {expression: "{{ attempts < 3 }}"}
      loop_blocks: [...]
"""

import sys

from ..engine.semantics import (
    DEFAULT_CRITERIA_TYPE, MAX_ITERATIONS_REASON, MAX_LOOP_ITERATIONS, is_pure_jinja_expression, is_truthy_string,
)

CODE = "WF708"
NAME = "while-condition-text"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.blocks_of("while_loop"):
        condition = b.data.get("condition")
        if not isinstance(condition, dict):
            continue
        expression = condition.get("expression")
        declared = condition.get("criteria_type", DEFAULT_CRITERIA_TYPE)
        if declared != "jinja2_template" or not isinstance(expression, str) or is_pure_jinja_expression(expression):
            continue
        path = b.path + ("condition", "expression")
        wrap = f"'{{{{ {expression.strip()} }}}}'"
        if "{{" not in expression and "{%" not in expression:
            if is_truthy_string(expression):
                yield wf.diag(
                    rule,
                    f"the condition of while_loop '{b.label}' is the text '{expression.strip()}', which the engine "
                    f"reads as true every time: the loop runs {MAX_LOOP_ITERATIONS} times and fails "
                    f"(\"{MAX_ITERATIONS_REASON}\")",
                    path,
                    help=f"write it as one Jinja expression: {wrap}, or declare criteria_type: prompt",
                )
            else:
                yield wf.diag(
                    rule,
                    f"the condition of while_loop '{b.label}' is the text '{expression.strip()}', which the engine "
                    "reads as false: the loop body never runs",
                    path,
                    severity="warning",
                    help=f"write it as one Jinja expression: {wrap}",
                )
            continue
        yield wf.diag(
            rule,
            f"the condition of while_loop '{b.label}' mixes {{{{ }}}} with other text: the engine reads the rendered "
            "text as true unless it is empty or a false word, whatever the comparison says",
            path,
            severity="warning",
            help="put the whole test inside one {{ ... }}",
        )
