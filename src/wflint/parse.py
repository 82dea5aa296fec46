"""Text → positioned node tree, for YAML and JSON, reporting problems instead of raising.

YAML is read the way the service reads it: YAML 1.1 with the timestamp rule switched off
(``2024-01-01`` stays a string), safe tags only, exactly one document (reference §1, §6.3 B2,
§8.1). libyaml's C parser produces the events; this module composes them into ``Node``s itself,
in one iterative pass, instead of letting PyYAML's composer build its own node graph first. One
pass is about twice as fast, and it is the natural place to enforce the limits hostile input
needs: nesting depth (libyaml's flow scanner is quadratic in depth and PyYAML's composer is
recursive), alias expansion ("billion laughs") and recursive aliases.

Where libyaml and the service's pure-Python parser disagree, the service wins: its error text is
recovered by re-reading the file with the pure-Python parser when libyaml reports an error, and
tabs outside quoted or block scalars (accepted by libyaml, refused by PyYAML) are checked the
same way.

JSON has no positions in the standard library, so ``_parse_json`` is a small iterative parser
built on the C-accelerated ``json.decoder.scanstring``; its error messages and offsets are taken
from ``json.loads`` so they match what the service's request parser says.
"""

from __future__ import annotations

import gc
import json
import re
from contextlib import contextmanager
from bisect import bisect_right
from dataclasses import dataclass, field
from json.decoder import scanstring
from typing import Callable, Iterator

import yaml
from yaml import events as ev
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.nodes import ScalarNode
from yaml.resolver import Resolver

from .diagnostics import Diagnostic, ServiceVerdict, make
from .nodes import Node, Pos
from .source import EmbeddedSource, SourceFile
from .strmap import value_offsets

try:  # libyaml; the pure-Python parser is the fallback and the arbiter of exact messages
    from yaml.cyaml import CParser as _CParser
except ImportError:  # pragma: no cover - depends on how PyYAML was built
    _CParser = None

#: collections nested deeper than this are refused (WF001)
MAX_DEPTH = 500
#: extra nodes aliases may add to a document before it counts as an alias bomb (WF001)
MAX_ALIAS_NODES = 200_000
#: on a libyaml error, texts up to this size are re-read with PyYAML's pure-Python parser
_PURE_PYTHON_LIMIT = 1_000_000


@dataclass
class ParseResult:
    """The tree (``None`` when the text could not be read), the problems, and the format.

    ``source`` is the file the node positions refer to: the parsed ``SourceFile``, or for
    ``parse_embedded`` an ``EmbeddedSource`` that maps the inner document into the outer file.
    """

    root: Node | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    format: str = "yaml"
    source: SourceFile | None = None


def parse(source: SourceFile, fmt: str | None = None) -> ParseResult:
    """Parse a file as ``fmt`` ("yaml"/"json"), or by its extension, or by sniffing its text."""
    with _no_gc():
        return _parse(source, fmt)


def _parse(source: SourceFile, fmt: str | None) -> ParseResult:
    fmt = fmt or _format_from_path(source.path)
    if fmt == "json":
        return _parse_json(source)
    if fmt == "yaml":
        return _parse_yaml(source.text, source.pos_function(), source.path, source, "the file")
    first = _WS.match(source.text).end()
    if source.text[first : first + 1] in ("{", "["):
        result = _parse_json(source)
        if not any(d.code == "WF001" for d in result.diagnostics):
            return result
    return _parse_yaml(source.text, source.pos_function(), source.path, source, "the file")


def parse_embedded(outer: SourceFile, node: Node) -> ParseResult:
    """Parse the string value of ``node`` (a ``yaml_definition``) as YAML.

    Every position in the result, nodes and diagnostics alike, is a position in ``outer``:
    inner offsets are mapped through ``strmap.value_offsets``, so escapes of a JSON string and
    the indentation of a YAML block scalar are accounted for.
    """
    if not node.is_str():
        msg = "yaml_definition must be a string holding a YAML document"
        return ParseResult(None, [_diag("WF002", msg, node.start, node.end, outer.path)], "yaml", outer)
    table = value_offsets(outer, node)
    embedded = EmbeddedSource(outer, node.value, table)
    last = len(table) - 1
    outer_pos = outer.pos

    def pos_of(index: int) -> Pos:
        return outer_pos(table[index if index <= last else last])

    with _no_gc():
        return _parse_yaml(node.value, pos_of, outer.path, embedded, "yaml_definition")


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cycle collector while a tree is built.

    A parse creates a few container objects per node and no cycles; left running, the
    collector rescans the growing tree again and again, which doubles the time of a 1 MB file.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _format_from_path(path: str) -> str | None:
    lower = path.lower()
    if lower.endswith(".json"):
        return "json"
    if lower.endswith((".yaml", ".yml")):
        return "yaml"
    return None


def _diag(code: str, message: str, start: Pos, end: Pos | None, path: str, **extra) -> Diagnostic:
    name = _NAMES[code]
    return make(code, name, "error", message, start, end or start, path=path, **extra)


_NAMES = {"WF001": "syntax-error", "WF002": "not-a-mapping", "WF003": "duplicate-key", "WF005": "multiple-documents"}


def _check_root(root: Node | None, empty: bool, what: str, pos0: Pos, path: str) -> list[Diagnostic]:
    """WF002 when the document is missing or is not a mapping."""
    if root is None:
        if not empty:
            return []
        msg = f"{what} is empty; a workflow definition must be a mapping (title, workflow_definition, ...)"
        return [_diag("WF002", msg, pos0, pos0, path)]
    if root.kind == "map":
        return []
    msg = f"{what} holds {_describe(root)}, not a mapping; a workflow definition must be a mapping (title, workflow_definition, ...)"
    return [_diag("WF002", msg, root.start, root.end, path)]


def _describe(node: Node) -> str:
    if node.kind == "seq":
        return "a list"
    value = node.value
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"the boolean {node.raw}"
    if isinstance(value, (int, float)):
        return f"the number {node.raw}"
    return "a string"


def _key_repeated(key: Node, first: Node, path: str) -> Diagnostic:
    shown = key.value if isinstance(key.value, str) else key.raw
    if key.raw == first.raw or isinstance(key.value, str):
        msg = f"key {shown!r} is repeated (first at line {first.start.line}); the service keeps the last value"
    else:  # `1` and `true`, or `yes` and `on`: different text, one key once read
        msg = (
            f"key {key.raw!r} repeats key {first.raw!r} (line {first.start.line}): both read as "
            f"{key.value!r}, and the service keeps the last value"
        )
    return _diag("WF003", msg, key.start, key.end, path)


# =========================================================================== YAML

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
#: what PyYAML's reader refuses anywhere in the text (checked up front, as PyYAML does)
_NON_PRINTABLE = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _resolve(value: str) -> str:
    for tag, rx in _IMPLICIT.get(value[0] if value else "", ()):
        if rx.match(value):
            return tag
    return _STR


class _Problem(Exception):
    """A reason the document cannot be read, with PyYAML-style problem and context marks."""

    def __init__(
        self, problem: str, problem_mark, context: str | None = None, context_mark=None, exact: bool = True, message: str | None = None
    ):
        super().__init__(problem)
        #: our wording, when PyYAML's reads badly
        self.message = message
        self.problem, self.problem_mark = problem, problem_mark
        self.context, self.context_mark = context, context_mark
        #: whether the service's parser says exactly this (service verdict known)
        self.exact = exact


class _PyParser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """PyYAML's pure-Python event parser: the service's parser."""

    def __init__(self, stream: str):
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)


class _Frame:
    """An open mapping or sequence while its events arrive."""

    __slots__ = ("node", "is_map", "anchor", "size", "end", "key", "key_tag", "key_mark", "seen", "merged", "flow", "tag", "mark")

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


def _parse_yaml(text: str, pos_of: Callable[[int], Pos], path: str, source: SourceFile, what: str) -> ParseResult:
    composer = _YamlComposer(text, pos_of, path)
    root = composer.run()
    diags = composer.diags
    if not composer.fatal:
        diags += _check_root(root, composer.documents == 0, what, pos_of(0), path)
    return ParseResult(root, diags, "yaml", source)


class _YamlComposer:
    """Builds the node tree from parser events (see the module docstring for why)."""

    def __init__(self, text: str, pos_of: Callable[[int], Pos], path: str):
        self.text, self.pos_of, self.path = text, pos_of, path
        self.diags: list[Diagnostic] = []
        self.fatal = False
        self.documents = 0
        self.alias_nodes = 0
        self.constructor = SafeConstructor()
        #: spans of quoted and block scalars, collected only when the text holds a tab
        self.safe_spans: list[tuple[int, int]] | None = [] if "\t" in text else None

    # -- driver ---------------------------------------------------------------------------
    def run(self) -> Node | None:
        bad = _NON_PRINTABLE.search(self.text)
        if bad:
            problem = f"unacceptable character #x{ord(bad.group()):04x}: special characters are not allowed"
            self._fail(_Problem(problem, _Mark(self.text, bad.start()), exact=False))
            return None
        if _CParser is not None:
            try:
                return self._run(_CParser(self.text))
            except yaml.MarkedYAMLError as exc:
                if len(self.text) > _PURE_PYTHON_LIMIT:
                    self._fail(_Problem(exc.problem or str(exc), exc.problem_mark, exc.context, exc.context_mark, exact=False))
                    return None
            # libyaml refused the text: the service's parser decides (its message, or its tree,
            # as it accepts a few things libyaml refuses, e.g. a tab starting a block scalar line)
            self.__init__(self.text, self.pos_of, self.path)  # type: ignore[misc]
        try:
            return self._run(_PyParser(self.text))
        except yaml.MarkedYAMLError as exc:
            self._fail(_Problem(exc.problem or str(exc), exc.problem_mark, exc.context, exc.context_mark))
            return None

    def _run(self, parser) -> Node | None:
        """Compose with one parser; libyaml's syntax errors propagate (see ``run``)."""
        try:
            root = self._compose(parser)
        except _Problem as problem:
            self._fail(problem)
            return None
        except yaml.MarkedYAMLError:
            raise
        except yaml.YAMLError as exc:  # a reader error from libyaml: its position counts bytes
            index = _char_index(self.text, getattr(exc, "position", 0))
            self._fail(_Problem(getattr(exc, "reason", None) or str(exc), _Mark(self.text, index), exact=False))
            return None
        except (RecursionError, MemoryError) as exc:  # pragma: no cover - guarded by the limits
            problem = f"the document is too large or too deep ({type(exc).__name__})"
            self._fail(_Problem(problem, _Mark(self.text, 0), exact=False))
            return None
        finally:
            parser.dispose()
        if self.safe_spans is not None and not isinstance(parser, _PyParser):
            self._check_tabs()
        return root

    def _fail(self, p: _Problem) -> None:
        self.fatal = True
        start = self._pos(p.problem_mark)
        message = f"could not parse YAML: {p.problem}"
        if p.message:
            message = f"could not parse YAML: {p.message}"
        elif p.context:
            if p.context_mark is not None:
                where = self._pos(p.context_mark)
                message += f" ({p.context} at line {where.line}, column {where.col})"
            else:
                message += f" ({p.context})"
        self.diags.append(_diag("WF001", message, start, start, self.path, service=_verdict(p)))

    def _pos(self, mark) -> Pos:
        return self.pos_of(mark.index) if mark is not None else self.pos_of(0)

    def _check_tabs(self) -> None:
        """PyYAML refuses a tab between tokens, which libyaml accepts: ask PyYAML when one occurs."""
        spans = sorted(self.safe_spans or [])
        starts = [s for s, _ in spans]
        for match in re.finditer("\t", self.text):
            i = match.start()
            k = bisect_right(starts, i) - 1
            if k >= 0 and spans[k][0] <= i < spans[k][1]:
                continue
            exact = _python_parse_error(self.text, len(self.text))
            if exact is not None:
                p = _Problem(exact.problem or str(exact), exact.problem_mark, exact.context, exact.context_mark)
                why = "a tab here" if "\\t" in (exact.problem or "") else "this"
                message = f"could not parse YAML: {p.problem} (the service's YAML parser refuses {why}, libyaml accepts it)"
                where = self._pos(p.problem_mark)
                self.diags.append(_diag("WF001", message, where, None, self.path, service=_verdict(p)))
            return

    # -- composition ----------------------------------------------------------------------
    def _compose(self, parser) -> Node | None:
        get_event = parser.get_event
        ScalarEvent, AliasEvent = ev.ScalarEvent, ev.AliasEvent
        MappingStart, SequenceStart = ev.MappingStartEvent, ev.SequenceStartEvent
        MappingEnd, SequenceEnd = ev.MappingEndEvent, ev.SequenceEndEvent
        DocumentStart, StreamEnd = ev.DocumentStartEvent, ev.StreamEndEvent
        stack: list[_Frame] = []
        #: anchor name → open _Frame, or (node, tag, expanded size, start mark) once complete
        anchors: dict[str, object] = {}
        root: Node | None = None
        root_mark = None
        scalar = self._scalar

        while True:
            event = get_event()
            kind = type(event)
            if kind is ScalarEvent:
                node, tag = scalar(event)
                size, mark, end = 1, event.start_mark, event.end_mark.index
                if event.anchor is not None:
                    self._check_anchor(anchors, event)
                    anchors[event.anchor] = (node, tag, 1, mark)
            elif kind is MappingStart or kind is SequenceStart:
                if len(stack) >= MAX_DEPTH:
                    raise _Problem(f"nested too deeply (limit {MAX_DEPTH})", event.start_mark, exact=False)
                frame = self._open(event, kind is MappingStart)
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

            if not stack:
                root, root_mark = node, mark
                if tag == _MERGE or tag == _VALUE:
                    self._constructor_problem(_no_constructor(tag), mark)
                continue
            parent = stack[-1]
            parent.size += size
            parent.end = end
            if not parent.is_map:
                if tag == _MERGE or tag == _VALUE:
                    self._constructor_problem(_no_constructor(tag), mark)
                parent.node.items.append(node)
            elif parent.key is None:
                parent.key, parent.key_tag, parent.key_mark = node, tag, mark
            else:
                self._add_pair(parent, node, tag, mark)
        return root

    def _open(self, event, is_map: bool) -> _Frame:
        tag = event.tag
        mark = event.start_mark
        node = Node("map" if is_map else "seq", self.pos_of(mark.index), None)  # type: ignore[arg-type]
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
        node.end = self.pos_of(end)
        return end

    def _scalar(self, event) -> tuple[Node, str]:
        value, tag = event.value, event.tag
        start, end = event.start_mark.index, event.end_mark.index
        style = event.style or None
        if style is not None and self.safe_spans is not None:
            self.safe_spans.append((start, end))
        if tag is None or tag == "!":
            tag = _resolve(value) if event.implicit[0] else _STR
            if tag == _STR or tag == _MERGE or tag == _VALUE:
                data = value
            elif tag == _NULL:
                data = None
            elif tag == _BOOL:
                data = SafeConstructor.bool_values[value.lower()]
            else:
                data = self._construct(tag, event)
        else:
            data = self._construct(tag, event)
        node = Node("scalar", self.pos_of(start), self.pos_of(end), data, style, raw=self.text[start:end])
        return node, tag

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
                    self._constructor_problem(problem, value_mark, "while constructing a mapping", frame.mark, exact=False)
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
        self.alias_nodes += size
        if self.alias_nodes > MAX_ALIAS_NODES:
            problem = f"document expands to more than {MAX_ALIAS_NODES} nodes through aliases"
            raise _Problem(problem, event.start_mark, exact=False)
        return node, tag, size

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
            context = "while constructing an ordered map" if tag.endswith("omap") else "while constructing pairs"
            self._constructor_problem(f"expected a sequence, but found {found}", mark, context, mark)
        elif tag in _MAP_TAGS or tag in _SEQ_TAGS or tag in _SCALAR_TAGS:
            expected = "mapping" if tag in _MAP_TAGS else "sequence" if tag in _SEQ_TAGS else "scalar"
            self._constructor_problem(f"expected a {expected} node, but found {found}", mark)
        else:
            self._constructor_problem(_no_constructor(tag), mark)

    def _check_pairs(self, frame: _Frame) -> None:
        context = "while constructing an ordered map" if frame.tag.endswith("omap") else "while constructing pairs"
        for item in frame.node.items:
            if item.kind != "map":
                problem = f"expected a mapping of length 1, but found {_node_id(item)}"
            elif len(item.pairs) != 1:
                problem = f"expected a single mapping item, but found {len(item.pairs)} items"
            else:
                continue
            self._constructor_problem(problem, frame.mark, context, frame.mark, exact=False)
            return

    def _constructor_problem(self, problem: str, mark, context: str | None = None, context_mark=None, exact: bool = True) -> None:
        """A problem PyYAML's constructor raises: the tree stays usable, the service refuses it."""
        p = _Problem(problem, mark, context, context_mark, exact)
        start = self._pos(mark)
        message = f"could not read YAML: {problem}"
        if context and context_mark is not None and context_mark is not mark:
            where = self._pos(context_mark)
            message += f" ({context} at line {where.line}, column {where.col})"
        self.diags.append(_diag("WF001", message, start, start, self.path, service=_verdict(p)))


class _Mark:
    """A stand-in for a PyYAML mark made from a character index (line and column computed)."""

    __slots__ = ("index", "line", "column")

    def __init__(self, text: str, index: int):
        self.index = index
        # the service counts lines as PyYAML does; outside NEL/LS/PS this equals our count
        self.line = text.count("\n", 0, index) + text.count("\r", 0, index) - text.count("\r\n", 0, index)
        line_start = max(text.rfind("\n", 0, index), text.rfind("\r", 0, index)) + 1
        self.column = index - line_start


def _node_id(node: Node) -> str:
    return {"map": "mapping", "seq": "sequence"}.get(node.kind, "scalar")


def _no_constructor(tag: str) -> str:
    return f"could not determine a constructor for the tag {tag!r}"


def _verdict(p: _Problem) -> ServiceVerdict | None:
    """The service's reply to a YAML definition with this problem (§6.3 B2), when known."""
    if not p.exact or p.problem_mark is None:
        return None
    detail = f"Invalid YAML: {p.problem} at line {p.problem_mark.line + 1}, column {p.problem_mark.column + 1}"
    if p.context:
        if p.context_mark is not None:
            detail += f" ({p.context} at line {p.context_mark.line + 1}, column {p.context_mark.column + 1})"
        else:
            detail += f" ({p.context})"
    return ServiceVerdict(422, detail, ("B", 2, p.problem_mark.index))


def _python_parse_error(text: str, stop_index: int) -> yaml.MarkedYAMLError | None:
    """The first error PyYAML's pure-Python parser meets before ``stop_index``, if any."""
    parser = _PyParser(text)
    depth = 0
    try:
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is ev.StreamEndEvent or event.start_mark.index > stop_index:
                return None
            if kind is ev.MappingStartEvent or kind is ev.SequenceStartEvent:
                depth += 1
                if depth > MAX_DEPTH:
                    return None
            elif kind is ev.MappingEndEvent or kind is ev.SequenceEndEvent:
                depth -= 1
    except yaml.MarkedYAMLError as exc:
        return exc
    except Exception:  # pragma: no cover - only used to word a message
        return None


def _char_index(text: str, byte_offset: int) -> int:
    return len(text.encode("utf-8", "surrogatepass")[:byte_offset].decode("utf-8", "ignore"))


# =========================================================================== JSON

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SIMPLE_STRING = re.compile(r'"([^"\\\x00-\x1f]*)"')
# The separators are matched together with the simple key that usually follows them: one
# regular-expression call per member keeps the parser within a small factor of the node
# construction it cannot avoid. A key with escapes takes the slow path (``_json_key``).
_KEY = r'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*'
_OBJECT_OPEN = re.compile(r"\{[ \t\n\r]*(?:(\})|" + _KEY + ")?")
_OBJECT_NEXT = re.compile(r"[ \t\n\r]*(?:(\})|,[ \t\n\r]*(?:" + _KEY + ")?)")
_ARRAY_OPEN = re.compile(r"\[[ \t\n\r]*(\])?")
_ARRAY_NEXT = re.compile(r"[ \t\n\r]*(?:(\])|,[ \t\n\r]*)")
_CONSTANTS = {"null": None, "true": True, "false": False, "NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_WORDS = {"n": "null", "t": "true", "f": "false", "N": "NaN", "I": "Infinity"}


class _JsonError(Exception):
    def __init__(self, message: str, index: int):
        super().__init__(message)
        self.message, self.index = message, index


def _parse_json(source: SourceFile) -> ParseResult:
    diags: list[Diagnostic] = []
    try:
        root = _json_tree(source, diags)
    except _JsonError as err:
        message, index = err.message, err.index
        if not message.startswith("nested too deeply"):
            try:  # word it exactly as the service's JSON decoder does
                json.loads(source.text)
            except json.JSONDecodeError as exc:
                message, index = exc.msg, exc.pos
            except (ValueError, RecursionError):
                pass
        where = source.pos(index)
        diags = [d for d in diags if d.offset < index]
        diags.append(_diag("WF001", f"could not parse JSON: {message}", where, where, source.path))
        return ParseResult(None, diags, "json", source)
    diags += _check_root(root, False, "the file", source.pos(0), source.path)
    return ParseResult(root, diags, "json", source)


def _json_tree(source: SourceFile, diags: list[Diagnostic]) -> Node:
    """An iterative JSON parser producing positioned nodes (raises ``_JsonError``).

    ``stack`` holds the open containers; for an object, ``seen`` maps each key to its first
    node (WF003) and ``key`` is the key whose value is being read.
    """
    text, path, pos = source.text, source.path, source.pos_function()
    n = len(text)
    simple_string, number = _SIMPLE_STRING.match, _NUMBER.match
    object_open, object_next = _OBJECT_OPEN.match, _OBJECT_NEXT.match
    array_open, array_next = _ARRAY_OPEN.match, _ARRAY_NEXT.match
    stack: list[Node] = []
    seens: list[dict | None] = []
    keys: list[Node | None] = []
    key: Node | None = None
    seen: dict | None = None
    i = _WS.match(text).end()
    while True:
        # ---- one value at i
        c = text[i : i + 1]
        if c == '"':
            m = simple_string(text, i)
            if m is not None:
                value, j = m.group(1), m.end()
            else:
                value, j = _json_string(text, i)
            node = Node("scalar", pos(i), pos(j), value, "json", raw=text[i:j])
            i = j
        elif c == "{":
            node = Node("map", pos(i), None)  # type: ignore[arg-type]
            m = object_open(text, i)
            if m.group(1):
                i = m.end()
                node.end = pos(i)
            else:
                if len(stack) >= MAX_DEPTH:
                    raise _JsonError(f"nested too deeply (limit {MAX_DEPTH})", i)
                stack.append(node)
                keys.append(key)
                seens.append(seen)
                seen = {}
                if m.group(2) is not None:
                    k0 = m.start(2) - 1
                    k1 = m.end(2) + 1
                    key = Node("scalar", pos(k0), pos(k1), m.group(2), "json", raw=text[k0:k1])
                    i = m.end()
                else:
                    key, i = _json_key(text, m.end(), pos)
                continue
        elif c == "[":
            node = Node("seq", pos(i), None)  # type: ignore[arg-type]
            m = array_open(text, i)
            i = m.end()
            if m.group(1):
                node.end = pos(i)
            else:
                if len(stack) >= MAX_DEPTH:
                    raise _JsonError(f"nested too deeply (limit {MAX_DEPTH})", node.start.offset)
                stack.append(node)
                keys.append(key)
                seens.append(seen)
                key = seen = None
                continue
        elif c and c in "-0123456789":
            m = number(text, i)
            if m is None:
                if not text.startswith("-Infinity", i):
                    raise _JsonError("Expecting value", i)
                value, j = _CONSTANTS["-Infinity"], i + 9
            else:
                integer, frac, exp = m.groups()
                j = m.end()
                try:
                    value = float(integer + (frac or "") + (exp or "")) if frac or exp else int(integer)
                except ValueError as exc:  # more digits than Python converts
                    raise _JsonError(str(exc), i) from None
            node = Node("scalar", pos(i), pos(j), value, "json", raw=text[i:j])
            i = j
        else:
            word = _WORDS.get(c)
            if word is None or not text.startswith(word, i):
                raise _JsonError("Expecting value", i)
            j = i + len(word)
            node = Node("scalar", pos(i), pos(j), _CONSTANTS[word], "json", raw=word)
            i = j

        # ---- attach the finished value; close every container that ends here
        while True:
            if not stack:
                i = _WS.match(text, i).end()
                if i != n:
                    raise _JsonError("Extra data", i)
                return node
            parent = stack[-1]
            if seen is None:
                parent.items.append(node)
                m = array_next(text, i)
                if m is None:
                    raise _JsonError("Expecting ',' delimiter", _WS.match(text, i).end())
                i = m.end()
                if m.group(1) is None:
                    break
            else:
                first = seen.get(key.value)  # type: ignore[union-attr]
                if first is not None:
                    diags.append(_key_repeated(key, first, path))  # type: ignore[arg-type]
                else:
                    seen[key.value] = key  # type: ignore[union-attr]
                parent.pairs.append((key, node))  # type: ignore[arg-type]
                m = object_next(text, i)
                if m is None:
                    raise _JsonError("Expecting ',' delimiter", _WS.match(text, i).end())
                i = m.end()
                if m.group(1) is None:
                    if m.group(2) is not None:
                        k0 = m.start(2) - 1
                        k1 = m.end(2) + 1
                        key = Node("scalar", pos(k0), pos(k1), m.group(2), "json", raw=text[k0:k1])
                    else:
                        key, i = _json_key(text, i, pos)
                    break
            # the container closes here
            parent.end = pos(i)
            stack.pop()
            key = keys.pop()
            seen = seens.pop()
            node = parent


def _json_string(text: str, i: int) -> tuple[str, int]:
    try:
        return scanstring(text, i + 1, True)
    except json.JSONDecodeError as exc:
        raise _JsonError(exc.msg, exc.pos) from None


def _json_key(text: str, i: int, pos: Callable[[int], Pos]) -> tuple[Node, int]:
    """Read ``"key" :`` at ``i`` (the slow path: escapes or an error); return it and the value index."""
    if text[i : i + 1] != '"':
        raise _JsonError("Expecting property name enclosed in double quotes", i)
    value, j = _json_string(text, i)
    key = Node("scalar", pos(i), pos(j), value, "json", raw=text[i:j])
    j = _WS.match(text, j).end()
    if text[j : j + 1] != ":":
        raise _JsonError("Expecting ':' delimiter", j)
    return key, _WS.match(text, j + 1).end()
