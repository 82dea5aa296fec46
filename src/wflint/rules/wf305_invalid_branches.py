"""A conditional's branch list breaks the service's branch rules.

**What it checks.** A ``conditional`` block needs at least one branch, and at most one branch
marked ``is_default: true``. Every branch either has ``criteria`` or is the default, never
both and never neither. Zero default branches are allowed (when nothing matches, the route
continues at the conditional's ``next_block_label``).

**Why.** These are request-model rules: the service refuses the save (422) with "Conditional
blocks require at least one branch.", "Only one default branch is permitted per conditional
block.", "Branches without criteria must be marked as default." or "Default branches may not
define criteria.".

**Bad**::

    - block_type: conditional
      label: route
      branch_conditions:
        - {next_block_label: retry}
        - {is_default: true, criteria: {expression: "{{ done }}"}, next_block_label: finish}

**Good**::

    - block_type: conditional
      label: route
      branch_conditions:
        - {criteria: {expression: "{{ done }}"}, next_block_label: finish}
        - {is_default: true, next_block_label: retry}
"""

import sys

from ..checks.service_checks import branch_condition_error, conditional_branches_error
from .verdicts import model_verdict
from .wording import bounded_list
from ..model.lax import lax_bool

CODE = "WF305"
NAME = "invalid-branches"
SEVERITY = "error"
STAGE = "model"

_HELP = {
    "Branches without criteria must be marked as default.":
        "add criteria (e.g. criteria: {expression: \"{{ ... }}\"}) or mark it is_default: true",
    "Default branches may not define criteria.":
        "remove the criteria, or set is_default: false",
}


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.blocks_of("conditional"):
        branches = b.data.get("branch_conditions", [])
        if branches is None:
            branches = []  # null is a type error (WF102); the service never gets further
        if not isinstance(branches, list):
            continue
        name = f"conditional '{b.label}'"
        defaults: list[int] = []
        for i, br in enumerate(branches):
            if not isinstance(br, dict):
                continue
            is_default = lax_bool(br.get("is_default", False))
            if is_default is None:
                continue  # not a boolean: WF102
            if is_default:
                defaults.append(i)
            error = branch_condition_error(br.get("criteria") is not None, is_default)
            if error:
                yield wf.diag(rule, f"branch {i + 1} of {name}: {error} (the service rejects it)",
                              b.path + ("branch_conditions", i), help=_HELP[error],
                              service=model_verdict(wf, b.path + ("branch_conditions", i)))
        error = conditional_branches_error([i in defaults for i in range(len(branches))])
        if error is None:
            continue
        if defaults[1:]:
            where = b.path + ("branch_conditions", defaults[1], "is_default")
            hint = f"branches {bounded_list(i + 1 for i in defaults)} are all marked is_default; keep one"
        else:
            where = b.path + ("branch_conditions",) if "branch_conditions" in b.data else b.path + ("label",)
            hint = "add a branch, e.g. {criteria: {expression: \"{{ ok }}\"}, next_block_label: ...}, or use another block type"
        yield wf.diag(rule, f"{name}: {error} (the service rejects it)", where, help=hint,
                      service=model_verdict(wf, b.path))
