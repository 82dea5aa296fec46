"""Following ``next_block_label`` and branches loops back to an earlier block.

**What it checks.** In a v2 definition (and in every loop body of one), the route from the
starting block must end: the service walks the graph from the one block nothing points to,
and every block must be reached without coming back. Branch chains that end without a
``next_block_label`` continue at their conditional's merge point, so a cycle can also close
through a merge point. The rule names the blocks of each cycle in route order and points at
the reference that closes it. (When *every* block is the target of another, there is no
start at all: that is WF304.)

**Why.** The service refuses the save (422): "Circular reference detected: some blocks form a
loop through their next_block_label references, causing an infinite cycle. ..." A retry loop
written with routing (a ``wait`` pointing back at the conditional that routes to it) is the
common case; repeat work with a ``for_loop`` or ``while_loop`` block instead.

**Bad**::

    blocks:
      - {block_type: goto_url, label: open, url: "https://example.com", next_block_label: check}
      - block_type: conditional
        label: check
        branch_conditions:
          - {criteria: {expression: "{{ ready }}"}, next_block_label: done}
          - {is_default: true, next_block_label: pause}
      - {block_type: wait, label: pause, wait_sec: 5, next_block_label: check}
      - {block_type: wait, label: done, wait_sec: 1}

**Good**::

    blocks:
      - {block_type: goto_url, label: open, url: "https://example.com", next_block_label: poll}
      - block_type: while_loop
        label: poll
        condition: {expression: "{{ not ready }}"}
        loop_blocks:
          - {block_type: wait, label: pause, wait_sec: 5}
        next_block_label: done
      - {block_type: wait, label: done, wait_sec: 1}
"""

import sys

from ..workflow import routing
from .routing_findings import closing_note, graph_findings

CODE = "WF302"
NAME = "cycle"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    for finding, by_label, verdict in graph_findings(wf, routing.CYCLE):
        yield wf.diag(
            rule,
            f"blocks {routing.route_text(finding.labels)} form a cycle in {routing.scope_words(finding.loop)}"
            f"{closing_note(finding.edge)}: following next_block_label never reaches the end; "
            "the service rejects it",
            routing.edge_path(finding.edge, by_label),
            help="end the route with a block whose next_block_label is null; to repeat blocks, put "
                 "them in a for_loop or while_loop",
            service=verdict,
        )
