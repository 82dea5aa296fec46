"""Places in a file as an agent names them: the JSON path of the value at a character offset
(``$.workflow_definition.blocks[2].label``) and its JSON Pointer (RFC 6901).

An agent edits data, not lines: a finding's place and a fix's change are given this way too.
The path is found in the positioned node tree (``document.nodes``): the innermost mapping
member or list item whose span holds the offset. A workflow sent as a ``yaml_definition``
string is followed into: its own tree's positions are the outer file's.
"""

from __future__ import annotations

import re
from typing import Any

from ..document.nodes import Node

#: a step of a path: a mapping key or a list index
Step = str | int

_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class Place:
    """Where an offset falls: the steps to its member or item, and whether it is in the key."""

    __slots__ = ("steps", "in_key")

    def __init__(self, steps: list[Step], in_key: bool) -> None:
        self.steps, self.in_key = steps, in_key


def place_at(root: Node | None, offset: int, inner: list[Node] | None = None, *, empty: bool = False) -> Place:
    """The steps from ``root`` to the innermost member or item holding ``offset`` (a key's own
    text counts as its member). ``inner`` are the trees of embedded definitions: when the
    innermost node is a string holding one of them, the path goes on inside it. An ``empty``
    span (a finding about a whole object: a missing field, a file that is no request) at the
    start of a mapping is the mapping's, not its first key's."""
    steps: list[Step] = []
    node = root
    in_key = False
    while node is not None:
        if empty and node.kind == "map" and node.start.offset == offset:
            break
        child, in_key = _child_at(node, offset, steps)
        if child is None:
            break
        node = child
    if node is not None and node.kind == "scalar" and not in_key:
        for tree in inner or ():
            if _inside(tree, node) and _holds(tree, offset):
                deeper = place_at(tree, offset, empty=empty)
                return Place(steps + deeper.steps, deeper.in_key)
    return Place(steps, in_key)


def _inside(tree: Node, scalar: Node) -> bool:
    """Whether ``tree`` was parsed from the text of ``scalar`` (an embedded definition)."""
    return (tree is not scalar and scalar.start.offset <= tree.start.offset
            and tree.end.offset <= scalar.end.offset)


def _holds(node: Node, offset: int) -> bool:
    return node.start.offset <= offset < max(node.end.offset, node.start.offset + 1)


def _child_at(node: Node, offset: int, steps: list[Step]) -> tuple[Node | None, bool]:
    """The member or item of ``node`` holding ``offset`` (its step appended), and whether the
    offset is in the member's key (then there is no node to go on into)."""
    if node.kind == "map":
        for key, value in node.pairs:
            if _holds(key, offset):
                steps.append(_step(key))
                return None, True
            if _holds(value, offset):
                steps.append(_step(key))
                return value, False
    elif node.kind == "seq":
        for index, item in enumerate(node.items):
            if _holds(item, offset):
                steps.append(index)
                return item, False
    return None, False


def _step(key: Node) -> Step:
    return key.value if isinstance(key.value, str) else str(key.value)


def json_path(steps: list[Step]) -> str:
    """``$.a.b[0]``; a key that is not a plain name is quoted: ``$['odd key']``."""
    out = ["$"]
    for step in steps:
        if isinstance(step, int):
            out.append(f"[{step}]")
        elif _PLAIN_KEY.match(step):
            out.append(f".{step}")
        else:
            out.append("[" + repr(step).replace('"', '\\"') + "]")
    return "".join(out)


def json_pointer(steps: list[Step]) -> str:
    return "".join("/" + str(step).replace("~", "~0").replace("/", "~1") for step in steps)


def value_at(data: Any, steps: list[Step]) -> Any:
    """The value ``steps`` lead to in plain data; KeyError/IndexError when they do not."""
    for step in steps:
        data = data[step]
    return data
