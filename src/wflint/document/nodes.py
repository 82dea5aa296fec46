"""Positioned nodes: the one tree every later stage reads.

The parser (``wflint.document.parse``) turns YAML or JSON text into these nodes. Every node keeps the span
of source text it came from, so a rule never searches the text for a line number: it points at
a node. ``to_data()`` gives the plain Python value (last duplicate key wins, as in the service).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ..core.diagnostics import Pos


class Node:
    """A mapping, a sequence or a scalar, with its span.

    * ``kind`` is ``"map"``, ``"seq"`` or ``"scalar"``.
    * For a scalar, ``value`` is the resolved Python value (YAML 1.1 rules, ISO dates kept as
      strings) and ``style`` is the YAML scalar style: ``None`` for plain, ``'"'``, ``"'"``,
      ``"|"``, ``">"``, or ``"json"`` for a JSON string/number/literal.
    * For a mapping, ``pairs`` holds every (key node, value node) in order, duplicates included.
    * For a sequence, ``items`` holds the element nodes.
    * ``start`` and ``end`` are the positions of its first character and of the one just after it.

    A node does not record its file: its positions refer to the ``ParseResult.source`` it was
    parsed with (for an embedded ``yaml_definition``, an ``EmbeddedSource`` whose positions are
    already those of the outer file).

    The parsers give ``start`` and ``end`` as character offsets with ``where``, the function
    that turns an offset into a ``Pos``; the line and column are worked out when a position is
    first read (for a finding, a hover ...), not for every node of every file: that was more
    than a third of the parse. Anyone else gives ``Pos`` objects.
    """

    __slots__ = ("kind", "_start", "_end", "value", "style", "pairs", "items", "raw", "_where")

    def __init__(self, kind: str, start: "Pos | int", end: "Pos | int | None", value: Any = None,
                 style: str | None = None, pairs: "list[tuple[Node, Node]]" = (),  # type: ignore[assignment]
                 items: "list[Node]" = (), raw: str | None = None,  # type: ignore[assignment]
                 where: "Callable[[int], Pos] | None" = None) -> None:
        self.kind = kind
        self._start = start
        self._end = end
        self.value = value
        self.style = style
        #: a scalar shares the empty tuple: two empty lists per scalar were a third of the
        #: objects a parse made, all of them for the cycle collector to scan
        self.pairs = pairs
        self.items = items
        #: for scalars: the raw text of the scalar in the source (used by WF004 and template mapping)
        self.raw = raw
        self._where = where

    @property
    def start(self) -> Pos:
        start = self._start
        if start.__class__ is int:
            start = self._start = self._where(start)  # type: ignore[misc]
        return start  # type: ignore[return-value]

    @start.setter
    def start(self, value: Pos) -> None:
        self._start = value

    @property
    def end(self) -> Pos:
        end = self._end
        if end.__class__ is int:
            end = self._end = self._where(end)  # type: ignore[misc]
        return end  # type: ignore[return-value]

    @end.setter
    def end(self, value: Pos) -> None:
        self._end = value

    def __repr__(self) -> str:
        return (f"Node(kind={self.kind!r}, start={self.start!r}, end={self.end!r}, value={self.value!r}, "
                f"style={self.style!r}, pairs={self.pairs!r}, items={self.items!r}, raw={self.raw!r})")

    def at(self, path: tuple) -> "Node | None":
        """The node at ``path`` (mapping keys and sequence indexes) below this one, exactly:
        None when a step is missing."""
        node: Node | None = self
        for part in path:
            if node is None:
                return None
            if node.kind == "map" and isinstance(part, str):
                node = node.get(part)
            elif node.kind == "seq" and isinstance(part, int) and 0 <= part < len(node.items):
                node = node.items[part]
            else:
                return None
        return node

    # -- mapping helpers -------------------------------------------------------------------
    def get(self, key: str) -> "Node | None":
        """The value node of ``key`` (the last one, as the service keeps the last duplicate)."""
        found = None
        for k, v in self.pairs:
            if k.value == key:
                found = v
        return found

    def key_node(self, key: str) -> "Node | None":
        found = None
        for k, _ in self.pairs:
            if k.value == key:
                found = k
        return found

    def keys(self) -> list[Any]:
        return [k.value for k, _ in self.pairs]

    def is_map(self) -> bool:
        return self.kind == "map"

    def is_seq(self) -> bool:
        return self.kind == "seq"

    def is_scalar(self) -> bool:
        return self.kind == "scalar"

    def is_str(self) -> bool:
        return self.kind == "scalar" and isinstance(self.value, str)

    def to_data(self) -> Any:
        """The plain Python value: dicts, lists and scalars."""
        if self.kind == "scalar":
            return self.value
        if self.kind == "seq":
            return [n.to_data() for n in self.items]
        out: dict[Any, Any] = {}
        for k, v in self.pairs:
            key = k.value if k.kind == "scalar" else _unhashable_key(k)
            out[key] = v.to_data()
        return out

    def walk(self) -> Iterator["Node"]:
        """Every node below and including this one, depth first."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            if n.kind == "map":
                for k, v in reversed(n.pairs):
                    stack.append(v)
                    stack.append(k)
            elif n.kind == "seq":
                stack.extend(reversed(n.items))


def _unhashable_key(node: Node) -> str:
    # YAML allows a mapping or sequence as a key; JSON-shaped data cannot hold one. The
    # service would fail on it anyway; we keep a readable stand-in so validation can go on.
    return f"<{node.kind} key at line {node.start.line}>"
