"""A block inside ``loop_blocks`` has no ``block_type``.

**What it checks.** Each child of a ``for_loop`` or ``while_loop`` body.

**Why.** Loop bodies are not dispatched on ``block_type``: the service tries every block
model in turn and keeps the one that accepts the object with the most fields set. ``{label,
url}`` becomes a ``task``, not a ``goto_url``. When no model accepts the child the service
answers 422 with about ninety errors, one group per block model; wflint says it once.

**Bad**::

    loop_blocks:
      - label: open_item
        url: "{{ current_value }}"

**Good**::

    loop_blocks:
      - block_type: goto_url
        label: open_item
        url: "{{ current_value }}"
"""

import sys

from .verdicts import model_verdict

CODE = "WF108"
NAME = "loop-child-without-type"
SEVERITY = "warning"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.all_blocks:
        if b.parent is None or "block_type" in b.data:
            continue
        name = f"'{b.data['label']}'" if isinstance(b.data.get("label"), str) else f"#{b.path[-1] + 1}"
        if b.tag is None:
            yield wf.diag(
                rule,
                f"loop child {name} has no block_type and no block type accepts it; the service rejects it",
                b.path,
                severity="error",
                help="add block_type",
                service=model_verdict(wf, b.path),
            )
        else:
            yield wf.diag(
                rule,
                f"loop child {name} has no block_type; the service will treat it as a '{b.tag}' block",
                b.path,
                help=f"add 'block_type: {b.tag}' if that is what you mean",
            )
