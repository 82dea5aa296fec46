"""Positionless node trees for data that arrives without a file (the mock server's bodies).

Rules always read a ``Node`` tree for positions; for plain data every node sits at line 1,
column 1, which is harmless because nobody prints those positions.
"""

from __future__ import annotations

from typing import Any

from .nodes import Node
from ..diagnostics import Pos

_ORIGIN = Pos(1, 1, 0)


def node_tree(value: Any) -> Node:
    if isinstance(value, dict):
        return Node(
            "map", _ORIGIN, _ORIGIN,
            pairs=[(Node("scalar", _ORIGIN, _ORIGIN, value=k), node_tree(v)) for k, v in value.items()],
        )
    if isinstance(value, list):
        return Node("seq", _ORIGIN, _ORIGIN, items=[node_tree(v) for v in value])
    return Node("scalar", _ORIGIN, _ORIGIN, value=value, style="json")
