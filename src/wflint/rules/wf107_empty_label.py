"""A block label is empty or only whitespace.

**What it checks.** Every block's ``label``, at any depth.

**Why.** Every block publishes its output as ``<label>_output``; an empty label names
nothing. Sent as ``json_definition`` the service answers 422 "Block labels cannot be empty.";
sent as ``yaml_definition`` its sanitizer silently renames the block to ``block`` (or
``block_2`` ...), which is almost never what the author meant.

**Bad**::

    - block_type: wait
      label: ""
      wait_sec: 5

**Good**::

    - block_type: wait
      label: pause
      wait_sec: 5
"""

import sys

from .verdicts import model_verdict

CODE = "WF107"
NAME = "empty-label"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    for b in wf.all_blocks:
        where = b.path + ("label",)
        node = wf.node(where)
        original = node.value if node is not None and node.kind == "scalar" and "label" in b.data else b.data.get("label")
        if not isinstance(original, str) or original.strip():
            continue
        if wf.mode == "yaml":
            yield wf.diag(
                rule,
                f"{b.tag or 'block'} block #{b.path[-1] + 1} has an empty label; sent as yaml_definition "
                f"the service silently names it '{b.label}'",
                where,
                severity="warning",
                help="give the block a descriptive label",
            )
        else:
            yield wf.diag(
                rule,
                f"{b.tag or 'block'} block #{b.path[-1] + 1} has an empty label; the service rejects it",
                where,
                help="give the block a descriptive label",
                service=model_verdict(wf, where),
            )
