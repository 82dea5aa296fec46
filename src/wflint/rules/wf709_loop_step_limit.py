"""A loop body runs more blocks in one iteration than the engine allows.

**What it checks.** The blocks of every ``for_loop`` and ``while_loop`` body: 50 or more.

**Why.** The engine counts the blocks one iteration runs and stops the iteration when the
count reaches ``DEFAULT_MAX_STEPS_PER_ITERATION`` (50), checked after each block: the 50th
block of an iteration fails the loop with "Reached max_steps_per_iteration limit of 50"
(and, without ``next_loop_on_failure``, the loop stops). A body that runs every block (no
``conditional`` in it) therefore fails on its first iteration: an error. With a
``conditional`` the count depends on the branches taken: a warning. The service saves it.

**Bad**::

    - block_type: for_loop
      label: each_row
      loop_over_parameter_key: rows
      loop_blocks: [ ...50 blocks... ]

**Good**: split the body: move a group of blocks into a nested loop, or after the loop.
"""

import sys

from ..engine.semantics import MAX_STEPS_PER_ITERATION, MAX_STEPS_REASON, iteration_fails_at_steps

CODE = "WF709"
NAME = "loop-step-limit"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    for loop in wf.blocks_of("for_loop", "while_loop"):
        body = loop.children
        if not iteration_fails_at_steps(len(body)):
            continue
        branching = any(b.tag == "conditional" for b in body)
        yield wf.diag(
            rule,
            f"{loop.tag} '{loop.label}' has {len(body)} blocks in its body; the engine fails an iteration when "
            f"it has run {MAX_STEPS_PER_ITERATION} of them (\"{MAX_STEPS_REASON}\")"
            + (", which depends on the branches taken" if branching else ", so every iteration fails"),
            loop.path + ("loop_blocks",),
            key=True,
            severity="warning" if branching else None,
            help=f"keep a body under {MAX_STEPS_PER_ITERATION} blocks: move some into a nested loop or after the loop",
        )
