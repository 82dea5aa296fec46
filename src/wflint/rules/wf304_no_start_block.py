"""Every block of a v2 scope is the target of another: no block can start.

**What it checks.** In a v2 definition the route starts at the one block that no
``next_block_label`` or branch points to, in the top level and in every loop body. When every
block of a scope is such a target, the blocks only point at each other in a circle. The rule
names the circle (in route order) and points at the reference that closes it.

**Why.** The service refuses the save (422): "Circular reference detected: every block is the
target of another block's next_block_label, so there is no starting block. ..." (inside a
loop body the message says "inside loop {label}").

**Bad**::

    blocks:
      - {block_type: wait, label: a, wait_sec: 1, next_block_label: b}
      - {block_type: wait, label: b, wait_sec: 1, next_block_label: a}

**Good**::

    blocks:
      - {block_type: wait, label: a, wait_sec: 1, next_block_label: b}
      - {block_type: wait, label: b, wait_sec: 1}
"""

import sys

from ..workflow import routing
from .routing_findings import closing_note, graph_findings

CODE = "WF304"
NAME = "no-start-block"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    for finding, by_label, verdict in graph_findings(wf, routing.NO_ROOT):
        yield wf.diag(
            rule,
            f"no block can start {routing.scope_words(finding.loop)}: every block is the target of another "
            f"block's next_block_label or branch; {routing.route_text(finding.labels)} loops back"
            f"{closing_note(finding.edge)}; the service rejects it",
            routing.edge_path(finding.edge, by_label),
            help=f"the first block to run must not be a target: remove the reference to '{finding.labels[0]}' "
                 "here, or end the route with a block whose next_block_label is null",
            service=verdict,
        )
