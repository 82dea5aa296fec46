"""YAML composition: parser events → positioned node tree, with the constructor's checks.

This module composes libyaml's (or PyYAML's) events into ``Node``s itself, in one iterative
pass, instead of letting PyYAML's composer build its own node graph first. One pass is about
twice as fast, and it is the natural place to enforce the limits hostile input needs: nesting
depth (libyaml's flow scanner is quadratic in depth and PyYAML's composer is recursive), alias
expansion ("billion laughs") and recursive aliases.

Scalars are resolved the way the service reads them: YAML 1.1 with the timestamp rule switched
off (``2024-01-01`` stays a string) and safe tags only. What PyYAML's constructor would refuse
(unknown tags, bad merge keys, unhashable keys, malformed ``!!omap``/``!!pairs``) becomes a WF001
diagnostic with the service's verdict while the tree stays usable; what makes the document
unreadable is raised as ``_Problem``. Which parser runs, and how a fatal problem is reported, is
``yaml_parser``'s part.
"""

from __future__ import annotations

from typing import Callable

from yaml import events as ev
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from ..core.diagnostics import Diagnostic
from .nodes import Node
from ..core.diagnostics import Pos
from .limits import DEFAULT, Limits, exceeded
from .parse_result import _diag, _key_repeated, _SpanOf
from .yaml_errors import _no_constructor, _node_id, _pairs_context, _Problem, _verdict

_TAG = "tag:yaml.org,2002:"
_STR, _NULL, _BOOL, _INT, _FLOAT = (_TAG + t for t in ("str", "null", "bool", "int", "float"))
_MERGE, _VALUE = _TAG + "merge", _TAG + "value"
#: YAML 1.1 implicit resolvers without the timestamp rule, indexed by first character
_IMPLICIT: dict[str | None, list] = {
    first: [(tag, rx) for tag, rx in rules if tag != _TAG + "timestamp"]
    for first, rules in Resolver.yaml_implicit_resolvers.items()
}
_MAP_TAGS = {_TAG + "map", _TAG + "set"}
_SEQ_TAGS = {_TAG + "seq", _TAG + "omap", _TAG + "pairs"}
_SCALAR_TAGS = {_TAG + t for t in ("str", "null", "bool", "int", "float", "binary", "timestamp")}


def resolve_plain(value: str) -> str:
    """The tag YAML 1.1, as the service reads it, gives an untagged plain scalar (PyYAML's
    ``BaseResolver.resolve`` without timestamps)."""
    for tag, rx in _IMPLICIT.get(value[0] if value else "", ()):
        if rx.match(value):
            break
    else:
        tag = _STR
    if len(value) <= 40 and len(_RESOLVED) < 50_000:  # keys and short values repeat a lot
        _RESOLVED[value] = tag
    return tag


#: plain scalar text → resolved tag, a cache shared by every parse (bounded in size)
_RESOLVED: dict[str, str] = {}


class _Frame:
    """An open mapping or sequence while its events arrive."""

    __slots__ = (
        "node", "is_map", "anchor", "size", "end", "key", "key_tag", "key_mark", "seen", "merged", "flow", "tag", "mark",
    )  # fmt: skip

    def __init__(self, node: Node, is_map: bool, anchor, flow, tag, mark):
        self.node, self.is_map, self.anchor, self.flow, self.tag, self.mark = node, is_map, anchor, flow, tag, mark
        self.size = 1
        #: where the last child ends (-1: no child yet)
        self.end = -1
        self.key: Node | None = None
        self.key_tag: str | None = None
        self.key_mark = None
        self.seen: dict | None = {} if is_map else None
        self.merged: list | None = None


class _YamlComposer:
    """Builds the node tree from parser events (see the module docstring for why).

    ``yaml_parser._YamlReader`` extends it with the driver: which parser, and fatal problems.
    """

    def __init__(
        self, text: str, pos_of: Callable[[int], Pos], path: str, span_of: _SpanOf | None = None, limits: Limits = DEFAULT
    ):
        self.text, self.pos_of, self.path, self.limits = text, pos_of, path, limits
        self.span_of: _SpanOf = span_of or (lambda start, end: (pos_of(start), pos_of(end)))
        self.constructor = SafeConstructor()
        self._reset()

    def _reset(self) -> None:
        """Forget a (failed) attempt with one parser before trying the other."""
        text = self.text
        self.diags: list[Diagnostic] = []
        self.fatal = False
        self.documents = 0
        self.alias_nodes = 0
        #: characters of scalar text the aliases met so far add, and each anchored node's own
        self.alias_chars = 0
        self._chars_of: dict[int, int] = {}
        #: (start, end, quoted or block) of every scalar, collected only when the text holds a tab
        self.scalar_spans: list[tuple[int, int, bool]] | None = [] if "\t" in text else None
        #: the deepest nesting met, to budget a re-read with the slow pure-Python parser
        self.max_depth = 0

    def _pos(self, mark) -> Pos:
        return self.pos_of(mark.index) if mark is not None else self.pos_of(0)

    # -- composition ----------------------------------------------------------------------
    def _compose(self, parser) -> Node | None:
        """The event loop. It runs once per event of a file of any size, so the common cases
        (an untagged scalar, a pair with a string key) are written out here rather than in
        helper methods; everything rarer is delegated."""
        get_event = parser.get_event
        ScalarEvent, AliasEvent = ev.ScalarEvent, ev.AliasEvent
        MappingStart, SequenceStart = ev.MappingStartEvent, ev.SequenceStartEvent
        MappingEnd, SequenceEnd = ev.MappingEndEvent, ev.SequenceEndEvent
        DocumentStart, StreamEnd = ev.DocumentStartEvent, ev.StreamEndEvent
        text, pos_of, spans, diags, path = self.text, self.pos_of, self.scalar_spans, self.diags, self.path
        STR, MERGE, VALUE = _STR, _MERGE, _VALUE
        resolved = _RESOLVED
        stack: list[_Frame] = []
        #: anchor name → open _Frame, or (node, tag, expanded size, start mark) once complete
        anchors: dict[str, object] = {}
        root: Node | None = None
        root_mark = None
        max_depth, max_nodes, nodes = self.limits.depth, self.limits.nodes, 0

        while True:
            event = get_event()
            kind = type(event)
            if kind is ScalarEvent:
                value, tag, mark = event.value, event.tag, event.start_mark
                start, end = mark.index, event.end_mark.index
                if tag is None or tag == "!":
                    if event.implicit[0]:
                        tag = resolved.get(value) or resolve_plain(value)
                        data = value if tag is STR else self._implicit_value(tag, event)
                    else:
                        tag, data = STR, value
                else:
                    data = self._construct(tag, event)
                style = event.style or None
                node = Node("scalar", start, end, data, style, raw=text[start:end], where=pos_of)
                if spans is not None:
                    spans.append((start, end, style is not None))
                size = 1
                if event.anchor is not None:
                    self._check_anchor(anchors, event)
                    anchors[event.anchor] = (node, tag, 1, mark)
            elif kind is MappingStart or kind is SequenceStart:
                if len(stack) >= max_depth:
                    message = exceeded("depth", "YAML nesting too deep", max_depth)
                    raise _Problem(message, event.start_mark, exact=False, limit=True)
                frame = self._open(event, kind is MappingStart)
                if len(stack) >= self.max_depth:
                    self.max_depth = len(stack) + 1
                if event.anchor is not None:
                    self._check_anchor(anchors, event)
                    anchors[event.anchor] = frame
                stack.append(frame)
                continue
            elif kind is MappingEnd or kind is SequenceEnd:
                frame = stack.pop()
                end = self._close(frame, event)
                node, tag, size, mark = frame.node, frame.tag, frame.size, frame.mark
                if frame.anchor is not None:
                    anchors[frame.anchor] = (node, tag, size, mark)
            elif kind is AliasEvent:
                node, tag, size = self._alias(anchors, event)
                mark, end = event.start_mark, event.end_mark.index
            elif kind is DocumentStart:
                self.documents += 1
                if self.documents > 1:
                    self._second_document(event, root_mark)
                    break
                anchors.clear()
                continue
            elif kind is StreamEnd:
                break
            else:
                continue

            # ---- attach the finished node to its parent
            nodes += 1
            if nodes > max_nodes:
                message = exceeded("nodes", "too many values in the document", max_nodes)
                raise _Problem(message, mark, exact=False, limit=True)
            if not stack:
                root, root_mark = node, mark
                if tag == MERGE or tag == VALUE:
                    self._constructor_problem(_no_constructor(tag), mark)
                continue
            parent = stack[-1]
            parent.size += size
            parent.end = end
            if not parent.is_map:
                if tag == MERGE or tag == VALUE:
                    self._constructor_problem(_no_constructor(tag), mark)
                parent.node.items.append(node)
            elif parent.key is None:
                parent.key, parent.key_tag, parent.key_mark = node, tag, mark
            else:
                key = parent.key
                if parent.key_tag is STR and key.kind == "scalar" and tag != MERGE and tag != VALUE:
                    first = parent.seen.get(key.value)  # type: ignore[union-attr]
                    if first is None:
                        parent.seen[key.value] = key  # type: ignore[index]
                    else:
                        diags.append(_key_repeated(key, first, path))
                    parent.node.pairs.append((key, node))
                    parent.key = None
                else:
                    self._add_pair(parent, node, tag, mark)
        return root

    def _implicit_value(self, tag: str, event):
        """The value of a plain scalar resolved to a tag other than ``str``."""
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return SafeConstructor.bool_values[event.value.lower()]
        if tag == _MERGE or tag == _VALUE:
            return event.value
        return self._construct(tag, event)

    def _open(self, event, is_map: bool) -> _Frame:
        tag = event.tag
        mark = event.start_mark
        start, where = mark.index, self.pos_of
        node = (Node("map", start, None, pairs=[], where=where) if is_map
                else Node("seq", start, None, items=[], where=where))
        if tag is not None and tag != "!" and tag not in (_MAP_TAGS if is_map else _SEQ_TAGS):
            self._collection_tag_problem(tag, is_map, mark)
        return _Frame(node, is_map, event.anchor, event.flow_style, tag, mark)

    def _close(self, frame: _Frame, event) -> int:
        """Finish a collection; return the index where it ends."""
        node = frame.node
        if frame.merged:
            node.pairs = frame.merged + node.pairs
        if frame.tag == _TAG + "omap" or frame.tag == _TAG + "pairs":
            self._check_pairs(frame)
        # a block collection ends with its last value, not where the next token starts
        end = event.end_mark.index if frame.flow or frame.end < 0 else frame.end
        node._end = end  # an offset, resolved by the node's ``where`` when read
        return end

    def _construct(self, tag: str, event):
        """A scalar's value through PyYAML's SafeConstructor (ints, floats, explicit tags)."""
        function = SafeConstructor.yaml_constructors.get(tag)
        if function is None:
            self._constructor_problem(_no_constructor(tag), event.start_mark)
            return event.value
        node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            data = function(self.constructor, node)
            if hasattr(data, "__next__"):  # the collection constructors are generators
                generator, data = data, next(data)
                for _ in generator:
                    pass
            return data
        except ConstructorError as exc:
            mark = exc.problem_mark or event.start_mark
            self._constructor_problem(exc.problem or str(exc), mark, exc.context, exc.context_mark)
        except Exception as exc:  # e.g. `!!bool maybe` raises KeyError inside PyYAML
            problem = f"cannot read {event.value!r} as {tag} ({type(exc).__name__})"
            self._constructor_problem(problem, event.start_mark, exact=False)
        return event.value

    def _add_pair(self, frame: _Frame, value: Node, value_tag: str, value_mark) -> None:
        key, key_tag, key_mark = frame.key, frame.key_tag, frame.key_mark
        frame.key = frame.key_tag = frame.key_mark = None
        assert key is not None
        if key_tag == _MERGE:
            self._merge(frame, value, value_mark)
            return
        if value_tag == _MERGE or value_tag == _VALUE:
            self._constructor_problem(_no_constructor(value_tag), value_mark)
        if key.kind != "scalar":
            self._constructor_problem("found unhashable key", key_mark, "while constructing a mapping", frame.mark)
        else:
            seen = frame.seen
            first = seen.get(key.value)
            if first is not None:
                self.diags.append(_key_repeated(key, first, self.path))
            else:
                seen[key.value] = key
        frame.node.pairs.append((key, value))

    def _merge(self, frame: _Frame, value: Node, value_mark) -> None:
        """``<<: *base`` / ``<<: [*a, *b]``: PyYAML's ``flatten_mapping`` (own keys win)."""
        if frame.merged is None:
            frame.merged = []
        if value.kind == "map":
            frame.merged.extend(value.pairs)
        elif value.kind == "seq":
            for item in value.items:
                if item.kind != "map":
                    problem = f"expected a mapping for merging, but found {_node_id(item)}"
                    context = "while constructing a mapping"
                    self._constructor_problem(problem, value_mark, context, frame.mark, exact=False)
                    return
            for item in reversed(value.items):
                frame.merged.extend(item.pairs)
        else:
            problem = f"expected a mapping or list of mappings for merging, but found {_node_id(value)}"
            self._constructor_problem(problem, value_mark, "while constructing a mapping", frame.mark)

    def _alias(self, anchors: dict, event) -> tuple[Node, str, int]:
        entry = anchors.get(event.anchor)
        if entry is None:
            raise _Problem(f"found undefined alias {event.anchor!r}", event.start_mark)
        if isinstance(entry, _Frame):
            problem = f"alias *{event.anchor} refers to a collection that contains it (a recursive alias)"
            raise _Problem(problem, event.start_mark, exact=False)
        node, tag, size, _ = entry
        limits = self.limits
        self.alias_nodes += size
        if self.alias_nodes > limits.alias_nodes:
            problem = exceeded("alias_nodes", "aliases expand the document by too many nodes", limits.alias_nodes)
            raise _Problem(problem, event.start_mark, exact=False, limit=True)
        self.alias_chars += self._expanded_chars(node)
        if self.alias_chars > limits.alias_chars:
            problem = exceeded("alias_chars", "aliases expand the document by too much text", limits.alias_chars)
            raise _Problem(problem, event.start_mark, exact=False, limit=True)
        return node, tag, size

    def _expanded_chars(self, node: Node) -> int:
        """The characters of scalar text under ``node`` with every alias expanded, each node
        measured once (the tree shares aliased nodes), without recursion."""
        memo = self._chars_of
        if id(node) in memo:
            return memo[id(node)]
        stack: list[tuple[Node, bool]] = [(node, False)]
        while stack:
            current, done = stack.pop()
            key = id(current)
            if key in memo:
                continue
            if current.kind == "scalar":
                memo[key] = len(current.raw or "")
                continue
            children = current.items if current.kind == "seq" else [n for pair in current.pairs for n in pair]
            if done:
                memo[key] = sum(memo.get(id(c), 0) for c in children)
                continue
            stack.append((current, True))
            stack.extend((c, False) for c in children if id(c) not in memo)
        return memo[id(node)]

    def _check_anchor(self, anchors: dict, event) -> None:
        previous = anchors.get(event.anchor)
        if previous is not None:
            first = previous.mark if isinstance(previous, _Frame) else previous[3]
            context = f"found duplicate anchor {event.anchor!r}; first occurrence"
            where = self._pos(first)
            message = f"anchor &{event.anchor} is defined twice (first at line {where.line}, column {where.col})"
            raise _Problem("second occurrence", event.start_mark, context, first, message=message)

    def _second_document(self, event, root_mark) -> None:
        context = "expected a single document in the stream"
        problem = _Problem("but found another document", event.start_mark, context, root_mark or event.start_mark)
        where = self.pos_of(event.start_mark.index)
        msg = "a second YAML document starts here; the service accepts exactly one document"
        self.diags.append(_diag("WF005", msg, where, where, self.path, service=_verdict(problem)))

    def _collection_tag_problem(self, tag: str, is_map: bool, mark) -> None:
        found = "mapping" if is_map else "sequence"
        if tag == _TAG + "omap" or tag == _TAG + "pairs":
            self._constructor_problem(f"expected a sequence, but found {found}", mark, _pairs_context(tag), mark)
        elif tag in _MAP_TAGS or tag in _SEQ_TAGS or tag in _SCALAR_TAGS:
            expected = "mapping" if tag in _MAP_TAGS else "sequence" if tag in _SEQ_TAGS else "scalar"
            self._constructor_problem(f"expected a {expected} node, but found {found}", mark)
        else:
            self._constructor_problem(_no_constructor(tag), mark)

    def _check_pairs(self, frame: _Frame) -> None:
        context = _pairs_context(frame.tag)
        for item in frame.node.items:
            if item.kind != "map":
                problem = f"expected a mapping of length 1, but found {_node_id(item)}"
            elif len(item.pairs) != 1:
                problem = f"expected a single mapping item, but found {len(item.pairs)} items"
            else:
                continue
            self._constructor_problem(problem, frame.mark, context, frame.mark, exact=False)
            return

    def _constructor_problem(
        self, problem: str, mark, context: str | None = None, context_mark=None, exact: bool = True
    ) -> None:
        """A problem PyYAML's constructor raises: the tree stays usable, the service refuses it."""
        p = _Problem(problem, mark, context, context_mark, exact)
        start = self._pos(mark)
        message = f"could not read YAML: {problem}"
        if context and context_mark is not None and context_mark is not mark:
            where = self._pos(context_mark)
            message += f" ({context} at line {where.line}, column {where.col})"
        self.diags.append(_diag("WF001", message, start, start, self.path, service=_verdict(p)))
