"""A ``next_block_label`` names no block in the same scope.

**What it checks.** The ``next_block_label`` of every block and of every conditional branch
must be the label of a block in the same scope: the top level, or the same loop body. A
loop body cannot jump out of its loop, and the top level cannot jump into one. Pointing at the
``finally_block_label`` block is fine (the service cuts that edge).

**Why.** In a v2 definition the service refuses the save (422): "Block a references unknown
next_block_label nowhere". In a v1 definition loop bodies are never graph-checked, so a
dangling reference there is accepted and silently ignored: a warning. On the YAML path, branch
targets are not renamed by the sanitizer, so a branch pointing at a label it renamed dangles.

**Bad**::

    - {block_type: wait, label: a, wait_sec: 1, next_block_label: nowhere}

**Good**::

    - {block_type: wait, label: a, wait_sec: 1, next_block_label: b}
    - {block_type: wait, label: b, wait_sec: 1}
"""

import sys

from ._common import scope_index, scopes, service_verdict, suggest

CODE = "WF202"
NAME = "unknown-next-block"
SEVERITY = "error"


def _targets(block):
    """(path, target) of every routing reference a block makes."""
    nxt = block.data.get("next_block_label")
    if isinstance(nxt, str):
        yield block.path + ("next_block_label",), nxt
    if block.tag == "conditional":
        branches = block.data.get("branch_conditions")
        if isinstance(branches, list):
            for i, br in enumerate(branches):
                if isinstance(br, dict) and isinstance(br.get("next_block_label"), str):
                    yield block.path + ("branch_conditions", i, "next_block_label"), br["next_block_label"]


def check(wf):
    rule = sys.modules[__name__]
    renamed = wf.sanitized.label_map if wf.sanitized is not None else {}
    v2 = wf.version >= 2
    fin = wf.finally_label
    for loop, members in scopes(wf):
        labels = {b.label for b in members if b.label is not None}
        for block in members:
            for path, target in _targets(block):
                if target in labels or (loop is None and target == fin):
                    continue
                inside = f" inside loop {loop.label}" if loop is not None else ""
                detail = f"Block {block.label} references unknown next_block_label {target}{inside}"
                scope_word = f"loop '{loop.label}'" if loop is not None else "the top level"
                elsewhere = [b for b in wf.labels.get(target, []) if b not in members]
                if elsewhere:
                    msg = f"next_block_label '{target}' names a block outside {scope_word}; routing cannot cross a loop boundary"
                else:
                    msg = f"next_block_label '{target}' names no block in {scope_word}"
                hint = suggest(target, labels)
                if target in renamed:
                    hint = f"the service renamed '{target}' to '{renamed[target]}' but does not rewrite this reference; use '{renamed[target]}'"
                if v2:
                    yield wf.diag(rule, msg + "; the service rejects it", path, help=hint,
                                  service=service_verdict(422, detail, "F", scope_index(wf, loop), 4, *path))
                elif loop is not None:
                    yield wf.diag(rule, msg + "; in a v1 workflow the service ignores it", path,
                                  severity="warning", help=hint)
