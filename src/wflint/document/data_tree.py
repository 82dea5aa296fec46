"""Positionless node trees for data that arrives without a file (the mock server's bodies).

Rules always read a ``Node`` tree for positions; for plain data every node sits at line 1,
column 1, which is harmless because nobody prints those positions.
"""

from __future__ import annotations

from typing import Any

from .nodes import Node
from ..core.diagnostics import Pos

_ORIGIN = Pos(1, 1, 0)


def node_tree(value: Any) -> Node:
    """The node tree of plain data (a loop, not a recursion: nesting is bounded by the caller's
    limits, not by Python's stack; the mock makes one for every save)."""
    holder: list = [None]
    # (a value, the list its node goes into, at which index, whether that slot is a pair)
    stack: list[tuple[Any, list, int, bool]] = [(value, holder, 0, False)]
    while stack:
        value, into, index, pair = stack.pop()
        if isinstance(value, dict):
            pairs: list = [(Node("scalar", _ORIGIN, _ORIGIN, k), None) for k in value]
            node = Node("map", _ORIGIN, _ORIGIN, None, None, pairs)
            stack.extend((v, pairs, i, True) for i, v in enumerate(value.values()))
        elif isinstance(value, list):
            items: list = [None] * len(value)
            node = Node("seq", _ORIGIN, _ORIGIN, None, None, (), items)
            stack.extend((v, items, i, False) for i, v in enumerate(value))
        else:
            node = Node("scalar", _ORIGIN, _ORIGIN, value, "json")
        into[index] = (into[index][0], node) if pair else node
    return holder[0]
