"""A ``code`` block step names an action type that does not exist.

**What it checks.** Each item of a ``code`` block's ``steps`` has an ``action_type``
(``null_action`` when left out). It should be one of the browser actions Skyvern knows:
``click``, ``input_text``, ``upload_file``, ``download_file``, ``select_option``,
``checkbox``, ``wait``, ``null_action``, ``solve_captcha``, ``terminate``, ``complete``,
``reload_page``, ``extract``, ``verification_code``, ``goto_url``, ``scroll``, ``keypress``,
``move``, ``drag``, ``left_mouse``. The rule suggests the closest one.

**Why.** The service does not refuse it: it ignores the ``steps`` it is sent and rebuilds them
from ``code`` on every save. A wrong ``action_type`` therefore never reaches a run, but it
shows that the steps were written by hand and describe something else than the stored
workflow will. That is a warning; deleting ``steps`` altogether is simplest.

Releases before 1.0.55 (``--target-version 1.0.48``) checked each step's ``action_type``
against their own list and refused the save (422, "Invalid step at index ... in code block
..."); for them this is an error.

**Bad**::

    - block_type: code
      label: fill_form
      code: "await page.fill('#name', 'Ada')"
      steps:
        - {description: "Type the name", action_type: type_text}

**Good**::

    - block_type: code
      label: fill_form
      code: "await page.fill('#name', 'Ada')"
      steps:
        - {description: "Type the name", action_type: input_text}
"""

import sys

from .verdicts import e_order, service_verdict

from .wording import close_match

CODE = "WF506"
NAME = "invalid-code-step"
SEVERITY = "warning"

#: Skyvern's browser action types (its ``ActionType`` enum)
ACTION_TYPES = frozenset((
    "click", "input_text", "upload_file", "download_file", "select_option", "checkbox", "wait",
    "null_action", "solve_captcha", "terminate", "complete", "reload_page", "extract",
    "verification_code", "goto_url", "scroll", "keypress", "move", "drag", "left_mouse",
))


#: the action types releases 1.0.42-1.0.48 validated code steps against, in their order
CHECKED_ACTION_TYPES = (
    "click", "input_text", "paste_text", "upload_file", "download_file", "select_option", "checkbox",
    "wait", "hover", "null_action", "solve_captcha", "terminate", "complete", "reload_page", "close_page",
    "new_tab", "switch_tab", "extract", "verification_code", "goto_url", "go_back", "go_forward",
    "scroll", "keypress", "move", "drag", "left_mouse", "execute_js",
)
#: values of ``CHECKED_ACTION_TYPES`` that only later releases have: value → first release
CHECKED_ACTION_TYPE_SINCE = {"paste_text": "1.0.48"}


def checked_action_types(version):
    """The action types ``version`` validates code steps against, in its order."""
    from ..model.releases import version_key

    return tuple(a for a in CHECKED_ACTION_TYPES
                 if version_key(version) >= version_key(CHECKED_ACTION_TYPE_SINCE.get(a, "0")))


def check(wf):
    rule = sys.modules[__name__]
    rebuilt = wf.release.has_check("code_steps_rebuilt")
    code = wf.release.BLOCK_TYPES.get("code")
    if code is None or code.field("steps") is None:
        return  # before 1.0.42 steps is no field: dropped unread (WF104 says so)
    for b in wf.blocks_of("code"):
        steps = b.data.get("steps")
        if not isinstance(steps, list):
            continue
        if not rebuilt:
            yield from _checked_steps(wf, rule, b, steps)
            continue
        for i, step in enumerate(steps):
            action = step.get("action_type") if isinstance(step, dict) else None
            if not isinstance(action, str) or action in ACTION_TYPES:
                continue
            closest = close_match(action, ACTION_TYPES)
            yield wf.diag(rule, f"step {i + 1} of code block '{b.label}' has action_type '{action}', which is not a "
                          "Skyvern action; the service ignores steps and rebuilds them from the code, so this one "
                          "is not what will be stored", b.path + ("steps", i, "action_type"),
                          help=(f"use '{closest}', or " if closest else "") + "delete steps: the service writes them itself")


def _checked_steps(wf, rule, b, steps):
    """Releases 1.0.42-1.0.48 validate each step's action_type and refuse the save (422)."""
    types = checked_action_types(wf.release.version)
    allowed = ", ".join(f"'{a}'" for a in types[:-1]) + f" or '{types[-1]}'"
    for i, step in enumerate(steps):
        action = step.get("action_type") if isinstance(step, dict) else None
        if not isinstance(action, str) or action in types:
            continue
        detail = f"Invalid step at index {i} in code block '{b.label}': action_type: Input should be {allowed}"
        closest = close_match(action, types)
        yield wf.diag(rule, f"step {i + 1} of code block '{b.label}' has action_type '{action}', which release "
                      f"{wf.release.version} refuses", b.path + ("steps", i, "action_type"), severity="error",
                      help=(f"use '{closest}', or " if closest else "") + "delete steps",
                      service=service_verdict(422, detail, "E", e_order(wf, b)))
        return
