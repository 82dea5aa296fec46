"""``next_loop_on_failure`` on a block that is not inside a loop.

**What it checks.** Every top-level block (not in any ``loop_blocks``) that sets
``next_loop_on_failure: true``, other than a loop itself (a loop's own flag applies to its
children).

**Why.** The engine reads ``next_loop_on_failure`` only while it runs a loop body
(``ForLoopBlock`` / ``WhileLoopBlock``: on a child's failure, go on with the next iteration);
the workflow's own traversal (``_handle_block_result_status``) looks at
``continue_on_failure`` only. On a top-level block the flag does nothing: when the block
fails, the run fails. A warning: the author probably meant ``continue_on_failure``.

**Bad**::

    - block_type: code
      label: optional_step
      next_loop_on_failure: true
      code: "x = 1"

**Good**::

    - block_type: code
      label: optional_step
      continue_on_failure: true
      code: "x = 1"
"""

import sys

CODE = "WF710"
NAME = "loop-flag-outside-loop"
SEVERITY = "warning"


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.blocks:
        if b.is_loop or b.data.get("next_loop_on_failure") is not True:
            continue
        yield wf.diag(
            rule,
            f"{b.tag or 'block'} '{b.label}' is not inside a loop, so next_loop_on_failure does nothing: "
            "if it fails, the run fails",
            b.path + ("next_loop_on_failure",),
            key=True,
            help="use continue_on_failure to let the run go on after a failure, or move the block into a loop",
        )
