"""A ``next_block_label`` names no block in the same scope.

**What it checks.** The ``next_block_label`` of every block and of every conditional branch
must be the label of a block in the same scope: the top level, or the same loop body. A
loop body cannot jump out of its loop, and the top level cannot jump into one. Pointing at the
``finally_block_label`` block is fine (the service cuts that edge). A conditional's own
``next_block_label`` is its merge point: a branch chain that ends without a
``next_block_label`` continues there, so an unknown merge point is refused as soon as one
branch chain reaches it.

**Why.** In a v2 definition the service refuses the save (422): "Block a references unknown
next_block_label nowhere" (for a merge point, the block named is the end of the branch
chain that continues there). In a v1 definition loop bodies are never graph-checked, so a
dangling reference there is accepted and silently ignored: a warning. A merge point that no
branch chain reaches is not checked either, but a run that gets there fails: a warning. On
the YAML path, branch targets are not renamed by the sanitizer, so a branch pointing at a
label it renamed dangles.

**Bad**::

    - {block_type: wait, label: a, wait_sec: 1, next_block_label: nowhere}

**Good**::

    - {block_type: wait, label: a, wait_sec: 1, next_block_label: b}
    - {block_type: wait, label: b, wait_sec: 1}
"""

import sys

from ..workflow import routing
from ..workflow.routing import scopes
from .verdicts import service_verdict
from .wording import Suggester

CODE = "WF202"
NAME = "unknown-next-block"
SEVERITY = "error"


def _targets(block):
    """(path, target) of every routing reference a block makes."""
    nxt = block.data.get("next_block_label")
    if isinstance(nxt, str) and nxt:
        yield block.path + ("next_block_label",), nxt
    if block.tag == "conditional":
        branches = block.data.get("branch_conditions")
        if isinstance(branches, list):
            for i, br in enumerate(branches):
                if isinstance(br, dict) and isinstance(br.get("next_block_label"), str) and br["next_block_label"]:
                    yield block.path + ("branch_conditions", i, "next_block_label"), br["next_block_label"]


def _scope_word(loop):
    return f"loop '{loop.label}'" if loop is not None else "the top level"


def _what(wf, target, members, loop, merge_of=None):
    """The message about ``target`` missing from the scope, and a hint (one ``Suggester`` per
    scope, kept in the workflow's cache: a scope with many dangling targets asks many times)."""
    scope_word = _scope_word(loop)
    what = f"merge point '{target}' of conditional '{merge_of}'" if merge_of else f"next_block_label '{target}'"
    elsewhere = [b for b in wf.labels.get(target, []) if b not in members]
    if elsewhere:
        msg = f"{what} names a block outside {scope_word}; routing cannot cross a loop boundary"
    else:
        msg = f"{what} names no block in {scope_word}"
    renamed = wf.sanitized.label_map if wf.sanitized is not None else {}
    key = ("wf202-suggester", id(members))
    entry = wf.cache.get(key)
    if entry is None or entry[0] is not members:
        entry = wf.cache[key] = (members, Suggester(b.label for b in members if b.label is not None))
    hint = entry[1].suggest(target)
    if target in renamed:
        hint = (f"the service renamed '{target}' to '{renamed[target]}' but does not rewrite this "
                f"reference; use '{renamed[target]}'")
    return msg, hint


def check(wf):
    rule = sys.modules[__name__]
    if wf.version >= 2:
        yield from _v2(wf, rule)
    else:
        yield from _v1_loops(wf, rule)


def _v2(wf, rule):
    all_scopes = scopes(wf)
    reported, targets = set(), set()
    for position, finding in routing.workflow_findings(wf):
        if finding.kind != routing.DANGLING:
            continue
        loop, members = all_scopes[position]
        by_label = {b.label: b for b in members if b.label is not None}
        edge = finding.edge
        path = routing.edge_path(edge, by_label)
        if path in reported:
            continue  # several branch chains end at one unknown merge point: one report
        reported.add(path)
        targets.add((position, edge.target))
        merge_of = edge.via[1] if edge.via[0] == "merge" else None
        msg, hint = _what(wf, edge.target, members, loop, merge_of)
        if merge_of:
            msg += f" (the branch chain ending at block '{edge.source}' continues there)"
        rank = len(reported)
        yield wf.diag(rule, msg + "; the service rejects it", path, help=hint,
                      service=service_verdict(422, finding.message, "F", position, routing.STEP[routing.DANGLING], rank))
    yield from _unused_merge_points(wf, rule, all_scopes, targets)


def _unused_merge_points(wf, rule, all_scopes, reported_targets):
    """A conditional's unknown merge point that no branch chain reaches: not checked by the
    service, but a run that falls through to it fails."""
    fin = wf.finally_label
    for position, (loop, members) in enumerate(all_scopes):
        labels = {b.label for b in members if b.label is not None}
        for block in members:
            target = block.data.get("next_block_label")
            path = block.path + ("next_block_label",)
            if block.tag != "conditional" or not isinstance(target, str) or not target:
                continue
            if (position, target) in reported_targets:
                continue  # already refused through a branch or a chain that reaches it
            if target in labels or (loop is None and target == fin) or (loop is None and block.label == fin):
                continue
            msg, hint = _what(wf, target, members, loop, merge_of=block.label)
            yield wf.diag(rule, msg + "; no branch reaches it, so the service does not check it, but a run "
                          "that falls through to it fails", path, severity="warning", help=hint)


def _v1_loops(wf, rule):
    """v1: loop bodies are not graph-checked; their dangling references are ignored."""
    for loop, members in scopes(wf):
        if loop is None:
            continue  # top-level routing in v1 is WF301's business
        labels = {b.label for b in members if b.label is not None}
        for block in members:
            for path, target in _targets(block):
                if target in labels:
                    continue
                msg, hint = _what(wf, target, members, loop)
                yield wf.diag(rule, msg + "; in a v1 workflow the service ignores it", path,
                              severity="warning", help=hint)
