"""A v2 scope has more than one starting block.

**What it checks.** In a v2 definition (and in every loop body of one) exactly one block may
be the target of no ``next_block_label`` and no branch: the start. Every other such block is
unreachable. The rule takes the first of them in list order as the intended start and
reports each of the others at its label, with the likely cause:

* blocks are not chained: in v2 there is no "next in the list". An explicit ``version: 2``
  over blocks written in v1 style, or one stray ``next_block_label`` (which makes the whole
  definition v2), leaves every block after an unchained one unreachable;
* a conditional whose branches all end (``next_block_label`` null) while it names a merge
  point: nothing continues to the merge point.

**Why.** The service refuses the save (422): "Disconnected blocks detected: blocks (b, c) are
not reachable from any other block. ..." (inside a loop body: "... inside loop {label}").

**Bad**::

    workflow_definition:
      version: 2
      blocks:
        - {block_type: goto_url, label: open, url: "https://example.com"}
        - {block_type: wait, label: pause, wait_sec: 2}

**Good**::

    workflow_definition:
      version: 2
      blocks:
        - {block_type: goto_url, label: open, url: "https://example.com", next_block_label: pause}
        - {block_type: wait, label: pause, wait_sec: 2}
"""

import sys

from ..workflow import routing
from ..workflow.routing import scopes
from .verdicts import service_verdict
from .wording import bounded_list

CODE = "WF303"
NAME = "disconnected-blocks"
SEVERITY = "error"


def _why_v2(wf, loop):
    d = wf.definition or {}
    if d.get("version") is not None:
        reason = f"the definition sets version: {d.get('version')}"
    else:
        first = next((b for b in wf.blocks if b.tag == "conditional" or b.data.get("next_block_label") is not None), None)
        what = "is a conditional" if first is not None and first.tag == "conditional" else "has a next_block_label"
        reason = f"top-level block '{first.label if first else '?'}' {what}, which makes the definition v2"
    where = " (loop bodies of a v2 definition are routed the same way)" if loop is not None else ""
    return reason + where


def _cause(wf, loop, members, root):
    """(explanation, help) for one unreachable start block."""
    merging = [b for b in members if b.tag == "conditional" and b.data.get("next_block_label") == root.label]
    if merging:
        c = merging[0]
        return (
            f"conditional '{c.label}' names it as its merge point, but no branch of '{c.label}' continues "
            "there: a branch whose next_block_label is null ends the route",
            f"point a branch of '{c.label}' at a block whose chain ends (it then continues at '{root.label}'), "
            f"or at '{root.label}' itself",
        )
    index = members.index(root)
    before = members[index - 1] if index > 0 else None
    if before is not None and before.tag != "conditional" and before.data.get("next_block_label") is None:
        return (
            f"block '{before.label}' listed before it has no next_block_label, and in v2 blocks do not run "
            f"in list order ({_why_v2(wf, loop)})",
            f"set next_block_label: {root.label} on block '{before.label}'",
        )
    return ("no next_block_label or branch leads to it", f"point a next_block_label or branch at '{root.label}', or remove it")


def check(wf):
    rule = sys.modules[__name__]
    all_scopes = scopes(wf)
    for position, finding in routing.workflow_findings(wf):
        if finding.kind != routing.DISCONNECTED:
            continue
        loop, members = all_scopes[position]
        by_label = {b.label: b for b in members if b.label is not None}
        # the finally block is not routed (the service takes it out first)
        routed = [b for b in members if loop is not None or b.label != wf.finally_label]
        extra = set(finding.labels)
        roots = [b for b in routed if b.label in extra]  # list order
        start = roots[0]
        verdict = service_verdict(422, finding.message, "F", position, routing.STEP[routing.DISCONNECTED])
        for root in roots[1:]:
            why, hint = _cause(wf, loop, routed, root)
            yield wf.diag(
                rule,
                f"block '{root.label}' is unreachable: {routing.scope_words(finding.loop)} already starts at "
                f"'{start.label}'; {why}; the service rejects it (starting blocks: "
                f"{bounded_list(finding.labels)})",
                by_label[root.label].path + ("label",),
                help=hint,
                service=verdict,
            )
