"""The limits a workflow tree meets before anything is derived from it: string lengths,
blocks, parameters and loops nested in loops (``document.limits``).

``first_excess`` walks the positioned tree once, before the sanitizer, the typed view and the
rules see it, and returns the WF007 diagnostic of the first limit exceeded (or None): a
workflow over a limit is reported and not checked further, so its cost stays that of the walk.
"""

from __future__ import annotations

from ..core.diagnostics import Diagnostic, make
from ..document.limits import CODE, NAME, Limits, exceeded
from ..document.nodes import Node


#: how much longer than its source text a string value can be: a block scalar's final newline,
#: a string inside an embedded ``yaml_definition`` (itself a string of the outer file) ...
_GROWTH = 64


def first_excess(root: Node, limits: Limits, path: str, text_chars: int | None = None) -> Diagnostic | None:
    """The first limit ``root`` (a request mapping) exceeds, as a WF007 diagnostic.
    ``text_chars`` is the length of the file the tree was read from, when there is one: a
    string value is never much longer than the text it came from (aliases repeat a node, they
    do not lengthen it), so a file shorter than the string limit skips that walk."""
    found = None
    if text_chars is None or text_chars + _GROWTH > limits.string_chars:
        found = _long_string(root, limits.string_chars)
    if found is not None:
        chars = len(found.value)
        what = f"a string of {chars} characters"
        return _diag(exceeded("string_chars", what, limits.string_chars), found, path)
    definition = root.get("workflow_definition") if root.kind == "map" else None
    if definition is None or definition.kind != "map":
        return None
    params = definition.get("parameters")
    if params is not None and params.kind == "seq" and len(params.items) > limits.parameters:
        what = f"{len(params.items)} parameters"
        return _diag(exceeded("parameters", what, limits.parameters), params.items[limits.parameters], path)
    return _blocks(definition.get("blocks"), limits, path)


def _long_string(root: Node, most: int) -> Node | None:
    """The first string scalar longer than ``most``; shared (aliased) nodes are visited once."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == "scalar":
            if isinstance(node.value, str) and len(node.value) > most:
                return node
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.kind == "seq":
            stack.extend(reversed(node.items))
        else:
            for key, value in reversed(node.pairs):
                stack.append(value)
                stack.append(key)
    return None


def _blocks(blocks: Node | None, limits: Limits, path: str) -> Diagnostic | None:
    """Blocks (loop bodies included) and loops nested in loops."""
    count = 0
    stack: list[tuple[Node | None, int]] = [(blocks, 0)]
    while stack:
        seq, depth = stack.pop()
        if seq is None or seq.kind != "seq":
            continue
        for item in seq.items:
            count += 1
            if count > limits.blocks:
                return _diag(exceeded("blocks", "too many blocks", limits.blocks), item, path)
            body = item.get("loop_blocks") if item.kind == "map" else None
            if body is not None and body.kind == "seq" and body.items:
                if depth + 1 > limits.loop_depth:
                    what = "loops nested too deeply"
                    return _diag(exceeded("loop_depth", what, limits.loop_depth), item, path)
                stack.append((body, depth + 1))
    return None


def _diag(message: str, node: Node, path: str) -> Diagnostic:
    return make(CODE, NAME, "error", message, node.start, node.start, path=path)
