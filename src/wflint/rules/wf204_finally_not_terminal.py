"""The finally block has a ``next_block_label``.

**What it checks.** The block named by ``finally_block_label`` must not route anywhere:
it runs last. This holds for v1 and v2 definitions alike.

**Why.** The service refuses the save (422): "finally_block_label 'b' must be a terminal
block (next_block_label must be null)".

**Bad**::

    finally_block_label: cleanup
    blocks:
      - {block_type: wait, label: cleanup, wait_sec: 1, next_block_label: a}

**Good**::

    finally_block_label: cleanup
    blocks:
      - {block_type: wait, label: cleanup, wait_sec: 1}
"""

import sys

from .verdicts import service_verdict

CODE = "WF204"
NAME = "finally-not-terminal"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    fin = wf.finally_label
    if fin is None:
        return
    for b in wf.blocks:
        if b.label == fin and b.next_label is not None:
            detail = (
                f"finally_block_label '{fin}' must be a terminal block (next_block_label must be null). "
                "Only blocks without a next_block_label can be used as finally blocks."
            )
            yield wf.diag(
                rule,
                f"the finally block '{fin}' must be the last to run, but it has next_block_label "
                f"'{b.next_label}'; the service rejects it",
                b.path + ("next_block_label",),
                help="remove its next_block_label",
                service=service_verdict(422, detail, "G", 3),
            )
            return
