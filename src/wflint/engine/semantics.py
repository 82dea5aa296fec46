"""The engine's run-time facts (release 1.0.56), as pure functions and constants.

Each fact names where the engine keeps it (package-relative to ``skyvern``) and was observed
on the real engine run offline (``service-runs.md`` §4). Rules and the simulator read these;
neither restates them.
"""

from __future__ import annotations

import re

#: ``DEFAULT_MAX_LOOP_ITERATIONS`` (models/block.py): a loop stops with a failure past this.
MAX_LOOP_ITERATIONS = 1000
#: ``DEFAULT_MAX_STEPS_PER_ITERATION``: block executions allowed in one loop iteration.
MAX_STEPS_PER_ITERATION = 50

#: ``terminate_block.py``: an error code must match this and be at most 128 characters after
#: rendering, or it is dropped (and a note appended to the reason).
ERROR_CODE_PATTERN = re.compile(r"[A-Za-z0-9_.:-]+")
ERROR_CODE_MAX_LENGTH = 128

#: ``_evaluate_truthy_string``: these (case-insensitive, stripped) are false; so is "".
FALSY_STRINGS = frozenset({"", "false", "0", "no", "n", "off", "null", "none"})

#: ``_is_pure_jinja_expression``: exactly one ``{{ … }}`` with nothing around it.
_PURE_JINJA = re.compile(r"^\s*\{\{(?:(?!\{\{|\}\}).)*\}\}\s*$", re.DOTALL)

#: Runtime variables the engine puts in every block's template namespace
#: (``_build_block_parameter_template_data``).
RUNTIME_VARIABLES = frozenset({
    "workflow_title", "workflow_id", "workflow_permanent_id", "workflow_run_id",
    "current_date", "browser_session_id", "workflow_run_outputs", "workflow_run_summary",
})
#: Set on a loop and its children for each iteration (and lifted to the top level).
LOOP_VARIABLES = frozenset({"current_index", "current_value", "current_item"})

#: Code blocks: names available without an import (``import`` itself is refused).
CODE_BLOCK_MODULES = frozenset({"json", "re", "datetime"})


def is_pure_jinja_expression(text: str) -> bool:
    """True when a branch expression stays ``jinja2_template``; anything else becomes ``prompt``.

    The engine decides a conditional branch's criteria type by its text, not by what was
    declared (``BranchCondition.validate_condition``), in both directions, at save time.
    """
    return bool(_PURE_JINJA.match(text))


def is_truthy_string(rendered: str) -> bool:
    """How a rendered Jinja branch criterion (or while condition) decides.

    ``_evaluate_truthy_string``: the falsy words and ``0`` are false, any nonzero number and
    any other non-empty text is true.
    """
    text = rendered.strip().lower()
    if text in FALSY_STRINGS:
        return False
    try:
        return float(text) != 0
    except ValueError:
        return True


def usable_error_code(code: str) -> bool:
    """Whether a rendered terminate ``error_code`` survives (else it is dropped)."""
    return len(code) <= ERROR_CODE_MAX_LENGTH and bool(ERROR_CODE_PATTERN.fullmatch(code))
