"""A template reads the output of a block that has not run yet at that point.

**What it checks.** A template that reads ``<label>_output`` (or a bare ``<label>``, the
block's metadata), or a ``parameter_keys`` entry naming ``<label>_output``, must belong to a
block that runs after that block. Execution order is the
service's: in a v1 definition blocks run in list order; in a v2 definition a block has run
before ``B`` when a route through ``next_block_label`` and conditional branches leads from it
to ``B``; the ``finally_block_label`` block runs last. A loop body sees the blocks before the
loop and the earlier blocks of its own body, never the loop's own output; a ``while_loop``
condition also sees its body's outputs (from the previous iteration).

**Why.** ``parameter_keys`` may name any block's output, so the service saves the workflow,
but the context holds only the outputs of blocks that already ran: the reference renders as
nothing.

**Bad**::

    blocks:
      - {block_type: text_prompt, label: summarize, prompt: "Summarize {{ extract_output }}"}
      - {block_type: extraction, label: extract, data_extraction_goal: "Extract the prices"}

**Good**::

    blocks:
      - {block_type: extraction, label: extract, data_extraction_goal: "Extract the prices"}
      - {block_type: text_prompt, label: summarize, prompt: "Summarize {{ extract_output }}"}
"""

import sys
from collections import deque

from ..workflow import routing
from ..checks import template_sites

CODE = "WF403"
NAME = "forward-reference"
SEVERITY = "warning"


def check(wf):
    rule = sys.modules[__name__]
    unique = {label: blocks[0] for label, blocks in wf.labels.items() if len(blocks) == 1}
    if not unique:
        return
    for site, read in template_sites.reads(wf):
        b = site.block
        if b is None:
            continue  # workflow-level templates render for every block
        target = _target(wf, read.name, unique)
        if target is None or (target is b and read.name == b.label):
            continue
        seen = produced_before(wf).get(id(b))
        if seen is None or target.label in seen:
            continue
        if b.tag == "while_loop" and site.path[len(b.path):][:1] == ("condition",) and _inside(target, b):
            continue  # the condition is evaluated again after each pass over the body
        start, end = template_sites.span(wf, site, read.offset, read.offset + len(read.name))
        message = (f"'{read.name}' in {template_sites.describe_site(site)} reads {target.tag or 'block'} block "
                   f"'{target.label}', which has not run yet at that point ({_why(wf, b, target)}); "
                   "it renders as nothing")
        yield wf.diag(rule, message, site.path, help=_help(wf, b, target), start=start, end=end)
    yield from _parameter_keys(wf, rule, unique)


def _parameter_keys(wf, rule, unique):
    """``parameter_keys: [later_output]`` passes the save-time check (§6.5 D8) but is empty
    when the block runs (§7.2)."""
    order = produced_before(wf)
    for b in wf.all_blocks:
        keys = b.data.get("parameter_keys")
        if not isinstance(keys, list) or order.get(id(b)) is None:
            continue
        for i, key in enumerate(keys):
            if not isinstance(key, str) or not key.endswith("_output") or key in wf.param_keys:
                continue
            target = unique.get(key[: -len("_output")])
            if target is None or target.label in order[id(b)]:
                continue
            yield wf.diag(rule, f"parameter_keys entry '{key}' of {b.tag or 'block'} block '{b.label}' names the "
                          f"output of {target.tag or 'block'} block '{target.label}', which has not run yet at that "
                          f"point ({_why(wf, b, target)}); the service accepts it, but it is empty when the block runs",
                          b.path + ("parameter_keys", i), help=_help(wf, b, target))


def _target(wf, name: str, unique):
    if name.endswith("_output") and name[:-7] in unique:
        return unique[name[:-7]]
    if name in unique and name not in wf.param_keys:
        return unique[name]
    return None


def _inside(block, loop) -> bool:
    p = block.parent
    while p is not None:
        if p is loop:
            return True
        p = p.parent
    return False


def _why(wf, b, target) -> str:
    if target is b:
        return "it is this block's own output"
    if _inside(b, target):
        return f"'{target.label}' is the loop around this block: its output exists once the loop ends"
    if wf.finally_label and target.label == wf.finally_label and target.parent is None:
        return f"'{target.label}' is the finally block, which runs last"
    if wf.version < 2:
        return "blocks run in list order"
    return f"no next_block_label route leads from '{target.label}' to this block"


def _help(wf, b, target) -> str:
    if target is b or _inside(b, target):
        return "read an earlier block's output, or use the value after this block"
    if wf.version < 2:
        return f"move block '{target.label}' before the block that reads it"
    return f"route '{target.label}' before this block with next_block_label"


class Produced:
    """The blocks whose output exists when one block runs, as a bit set over all blocks:
    ``label in produced`` asks one bit. Sets of labels per block made long workflows
    quadratic (a 5000-block chain took 17 s); integers keep each union a few machine words."""

    __slots__ = ("mask", "bits")

    def __init__(self, mask: int, bits: dict[str, int]) -> None:
        self.mask, self.bits = mask, bits

    def __contains__(self, label: object) -> bool:
        return bool(self.mask & self.bits.get(label, 0))  # type: ignore[arg-type]


def produced_before(wf) -> dict[int, Produced | None]:
    """id(block) → the blocks whose output exists when it runs (None: unknown order, e.g. a
    v2 scope whose routing is broken). Cached per workflow."""
    cached = wf.cache.get("produced_before")
    if cached is not None:
        return cached
    index = {id(b): i for i, b in enumerate(wf.all_blocks)}
    bits: dict[str, int] = {}
    for b in wf.all_blocks:
        if b.label is not None:
            bits[b.label] = bits.get(b.label, 0) | (1 << index[id(b)])
    subtree: dict[int, int] = {}  # a block and its loop body, at any depth

    def under(b) -> int:
        got = subtree.get(id(b))
        if got is None:
            got = 1 << index[id(b)]
            for c in b.children:
                got |= under(c)
            subtree[id(b)] = got
        return got

    masks: dict[int, int | None] = {}

    def scope(blocks, inherited: int | None, top: bool) -> None:
        if wf.version >= 2:
            preds = _graph_preds(blocks, wf.finally_label if top else None, under)
            for b in blocks:
                p = preds.get(id(b)) if preds is not None else None
                masks[id(b)] = None if inherited is None or p is None else inherited | p
        else:  # list order: each block sees everything above it
            acc = inherited
            for b in blocks:
                masks[id(b)] = acc
                acc = None if acc is None else acc | under(b)
        for b in blocks:
            if b.is_loop:
                scope(b.children, masks[id(b)], False)

    scope(wf.blocks, 0, True)
    out = {k: (None if m is None else Produced(m, bits)) for k, m in masks.items()}
    wf.cache["produced_before"] = out
    return out


def _graph_preds(blocks, finally_label, under):
    """The ancestors in the routing graph of each block of one v2 scope, as a bit set of
    the ancestors and their loop bodies (``under``), or None when the scope has no single
    start block (its order is then unknown and other rules report it)."""
    by_label = {b.label: b for b in blocks if b.label is not None}
    if len(by_label) != len(blocks):
        return None
    def _branches(b):
        # a branch list of the wrong type is the model rules' finding (WF102), not a crash here
        value = b.data.get("branch_conditions") if b.tag == "conditional" else None
        return value if isinstance(value, list) else []

    scoped = [
        routing.ScopeBlock(b.label, b.data.get("next_block_label"), b.tag == "conditional",
                         tuple(br.get("next_block_label") if isinstance(br, dict) else None
                               for br in _branches(b)))
        for b in blocks
    ]
    routed = routing.strip_finally(scoped, finally_label)
    children: dict[str, set[str]] = {s.label: set() for s in routed}
    edges = [(e.source, e.target) for e in routing.edges_of(routed)]
    # a conditional runs before its merge point even when no branch chain reaches it
    edges += [(s.label, s.next) for s in routed if s.conditional and isinstance(s.next, str)]
    indegree = {label: 0 for label in children}
    for src, dst in edges:
        if dst in children and src in children and dst not in children[src]:
            children[src].add(dst)
            indegree[dst] += 1
    if sum(1 for label in indegree if not indegree[label]) != 1:
        return None
    # propagate ancestor sets along the edges until nothing changes (a worklist: each block
    # is revisited only when what reaches it grew; a retry cycle makes a block its own
    # ancestor, since its last output exists when it runs again)
    mask = {label: 0 for label in children}
    queue = deque(label for label in children)
    queued = set(queue)
    while queue:
        src = queue.popleft()
        queued.discard(src)
        reach = mask[src] | under(by_label[src])
        for dst in children[src]:
            if reach & ~mask[dst]:
                mask[dst] |= reach
                if dst not in queued:
                    queue.append(dst)
                    queued.add(dst)
    out = {id(by_label[label]): m for label, m in mask.items()}
    if finally_label in by_label:
        fin = by_label[finally_label]
        everything = 0
        for b in blocks:
            if b is not fin:
                everything |= under(b)
        out[id(fin)] = everything
    return out
