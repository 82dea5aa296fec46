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


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.blocks_of("code"):
        steps = b.data.get("steps")
        if not isinstance(steps, list):
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
