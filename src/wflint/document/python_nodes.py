"""The nodes of a parsed Python tree, in ``ast.walk`` order, as one list.

Code-block rules ask several questions of the same tree (the names it binds and reads, its
``raise ErrorCode`` statements). ``ast.walk`` is a generator over generators and cost more than
the questions; ``nodes(tree)`` walks once, breadth first exactly as ``ast.walk`` does, and the
callers loop over the list.
"""

from __future__ import annotations

import ast


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree``, ``tree`` first, in the order ``ast.walk`` yields them."""
    out = [tree]
    node_type = ast.AST
    append = out.append
    for node in out:  # a list grows under its iterator: breadth first, as ast.walk's deque
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, node_type):
                append(value)
            elif value.__class__ is list:
                for item in value:
                    if isinstance(item, node_type):
                        append(item)
    return out
