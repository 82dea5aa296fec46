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
nothing (a warning). Reading a field of it (``{{ extract_output.price }}``) raises instead
and fails the block, ``| default(...)`` included: an error (confirmed on the real engine).

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

from ..workflow import routing
from ..workflow.graph_search import strongly_connected
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
        # a field of a missing value raises (``| default`` comes too late); a branch criterion
        # that raises only does not match, so there it stays a warning
        fails = bool(read.attrs) and "branch_conditions" not in site.path[len(b.path):]
        message = (f"'{read.name}' in {template_sites.describe_site(site)} reads {target.tag or 'block'} block "
                   f"'{target.label}', which has not run yet at that point ({_why(wf, b, target)}); "
                   + (f"reading its field '{read.attrs[0]}' fails the block" if fails else "it renders as nothing"))
        yield wf.diag(rule, message, site.path, help=_help(wf, b, target), start=start, end=end,
                      severity="error" if fails else None)
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
    """The blocks whose output exists when one block runs: ``label in produced`` asks it.

    Each block knows its place in its scope (the top level or one loop body) and which
    members of that scope have run before it: in a v1 scope the members above it (one
    position says it), in a v2 scope a bit set over that scope's members. A question walks the
    two blocks' loop ancestors to the scope where they part, so memory stays linear in the
    block count (bit sets over *all* blocks per block made a 6 MB file peak at 2.6 GB) and a
    question costs the loop depth.
    """

    __slots__ = ("block", "places", "by_label")

    def __init__(self, block, places: dict, by_label: dict) -> None:
        self.block, self.places, self.by_label = block, places, by_label

    def __contains__(self, label: object) -> bool:
        return any(self.has_run(t) for t in self.by_label.get(label, ()))  # type: ignore[arg-type]

    def has_run(self, target) -> bool:
        mine, theirs = _chain(self.block, self.places), _chain(target, self.places)
        for (scope, pos, before), (other_scope, other_pos, _) in zip(mine, theirs):
            if scope is not other_scope:
                break
            if before(other_pos):
                return True
            if other_pos != pos:
                break
        return False


def _chain(block, places) -> list:
    """The (scope, position, has-run test) of ``block`` and of each loop around it, outermost first."""
    out = []
    while block is not None:
        out.append(places[id(block)])
        block = block.parent
    out.reverse()
    return out


def produced_before(wf) -> dict[int, Produced | None]:
    """id(block) → the blocks whose output exists when it runs (None: unknown order, e.g. a
    v2 scope whose routing is broken). Cached per workflow."""
    cached = wf.cache.get("produced_before")
    if cached is not None:
        return cached
    by_label: dict[str, list] = {}
    for b in wf.all_blocks:
        if b.label is not None:
            by_label.setdefault(b.label, []).append(b)
    places: dict[int, tuple] = {}
    known: dict[int, bool] = {}  # whether the order before a block is known at every level
    _scope(wf, wf.blocks, True, True, places, known)
    out = {k: (Produced(_block_of(wf, k), places, by_label) if ok else None) for k, ok in known.items()}
    wf.cache["produced_before"] = out
    return out


def _scope(wf, blocks, inherited_known: bool, top: bool, places: dict, known: dict) -> None:
    """Fill ``places`` and ``known`` for ``blocks`` and the loop bodies below them (a
    module-level function: a nested recursive one is a reference cycle that kept the whole
    workflow alive until the cycle collector ran)."""
    if wf.version >= 2:
        preds = _graph_preds(blocks, wf.finally_label if top else None)
        for pos, b in enumerate(blocks):
            mask = preds.get(id(b)) if preds is not None else None
            places[id(b)] = (blocks, pos, (lambda other, mask=mask: bool(mask and (mask >> other) & 1)))
            known[id(b)] = inherited_known and mask is not None
    else:  # list order: each block sees everything above it
        for pos, b in enumerate(blocks):
            places[id(b)] = (blocks, pos, (lambda other, pos=pos: other < pos))
            known[id(b)] = inherited_known
    for b in blocks:
        if b.is_loop:
            _scope(wf, b.children, known[id(b)], False, places, known)


def _block_of(wf, key: int):
    index = wf.cache.get("wf403-blocks")
    if index is None:
        index = wf.cache["wf403-blocks"] = {id(b): b for b in wf.all_blocks}
    return index[key]


def _branches(block) -> list:
    """A conditional's branches; anything else (a number where the list belongs: WF102) has none."""
    branches = block.data.get("branch_conditions") if block.tag == "conditional" else None
    return branches if isinstance(branches, list) else []


def _graph_preds(blocks, finally_label):
    """The ancestors in the routing graph of each block of one v2 scope, as a bit set over
    the scope's positions, or None when the scope has no single start block (its order is
    then unknown and other rules report it)."""
    by_label = {b.label: b for b in blocks if b.label is not None}
    position = {b.label: i for i, b in enumerate(blocks) if b.label is not None}
    if len(by_label) != len(blocks):
        return None
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
    # the ancestors of each block: the blocks with a route to it. Strongly connected
    # components in topological order, so each block is visited once (a worklist over the
    # blocks revisited them quadratically often on nested conditionals); a retry cycle makes a
    # block its own ancestor, since its last output exists when it runs again
    parents: dict[str, list[str]] = {label: [] for label in children}
    for src, targets in children.items():
        for dst in targets:
            parents[dst].append(src)
    mask: dict[str, int] = {}
    # each component before every component it leads to
    for component in reversed(strongly_connected(children)):
        inside = set(component)
        reach = members = 0
        for label in component:
            members |= 1 << position[label]
            for src in parents[label]:
                if src not in inside:
                    reach |= mask[src] | (1 << position[src])
        cyclic = len(component) > 1 or component[0] in children[component[0]]
        own = reach | members if cyclic else reach
        for label in component:
            mask[label] = own
    out = {id(by_label[label]): m for label, m in mask.items()}
    if finally_label in by_label:
        fin = by_label[finally_label]
        out[id(fin)] = ((1 << len(blocks)) - 1) & ~(1 << position[finally_label])
    return out
