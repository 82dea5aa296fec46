"""Text → positioned node tree, for YAML and JSON, reporting problems instead of raising.

``parse`` reads a file as YAML or JSON (by the format asked for, the file's extension, or a
look at its first character); ``parse_embedded`` reads the YAML document held in a string value
of another file (an update body's ``yaml_definition``), with every position mapped into that
file. Both return a ``ParseResult``: the ``Node`` tree and the diagnostics met on the way.

The parts:

* ``yaml_parser`` — the YAML path: read as the service reads it (YAML 1.1, no timestamps, safe
  tags, one document), with libyaml for speed and PyYAML's pure-Python parser as the arbiter
  of the exact error messages;
* ``yaml_composer`` — libyaml's events composed into ``Node``s in one pass, with the limits
  hostile input needs (nesting depth, alias expansion: ``limits``) and the constructor's checks;
* ``yaml_errors`` — PyYAML-style problems and the service's verdict on them;
* ``json_parser`` — the JSON path: a small iterative parser with ``json.loads``'s messages;
* ``parse_result`` — ``ParseResult`` and the diagnostics both paths share;
* ``limits`` — every limit hostile input meets, with its default (WF007).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

from .nodes import Node
from ..core.diagnostics import Pos
from .source import EmbeddedSource, SourceFile
from .string_offsets import value_offsets
from .limits import DEFAULT, Limits
from .parse_result import MAX_ALIAS_NODES, MAX_DEPTH, ParseResult, _diag
from .json_parser import _WS, _parse_json
from .yaml_parser import _parse_yaml

__all__ = ["MAX_ALIAS_NODES", "MAX_DEPTH", "ParseResult", "parse", "parse_embedded"]


def parse(source: SourceFile, fmt: str | None = None, limits: Limits = DEFAULT) -> ParseResult:
    """Parse a file as ``fmt`` ("yaml"/"json"), or by its extension, or by sniffing its text."""
    with collector_paused():
        return _parse(source, fmt, limits)


def _parse(source: SourceFile, fmt: str | None, limits: Limits) -> ParseResult:
    fmt = fmt or format_from_path(source.path)
    if fmt == "json":
        return _parse_json(source, limits)
    if fmt != "yaml":
        first = _WS.match(source.text).end()
        if source.text[first : first + 1] in ("{", "["):
            result = _parse_json(source, limits)
            if not any(d.code == "WF001" for d in result.diagnostics):
                return result
    pos, span = source.pos_function(), source.span_function()
    return _parse_yaml(source.text, pos, source.path, source, "the file", span, limits)


def parse_embedded(outer: SourceFile, node: Node, limits: Limits = DEFAULT) -> ParseResult:
    """Parse the string value of ``node`` (a ``yaml_definition``) as YAML.

    Every position in the result, nodes and diagnostics alike, is a position in ``outer``:
    inner offsets are mapped through ``string_offsets.value_offsets``, so escapes of a JSON string and
    the indentation of a YAML block scalar are accounted for.
    """
    if not node.is_str():
        msg = "yaml_definition must be a string holding a YAML document"
        return ParseResult(None, [_diag("WF002", msg, node.start, node.end, outer.path)], "yaml", outer)
    # the offset table is made when a position is first read (a finding, an editor), like
    # the positions of the nodes: a file without findings never needs it
    embedded = EmbeddedSource(outer, node.value, lambda: value_offsets(outer, node))
    outer_pos = outer.pos

    def pos_of(index: int) -> Pos:
        table = embedded.inner_to_outer
        last = len(table) - 1
        return outer_pos(table[index if index <= last else last])

    with collector_paused():
        return _parse_yaml(node.value, pos_of, outer.path, embedded, "yaml_definition", None, limits)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cycle collector while a tree is built (and, in ``api``, while one file is
    checked).

    A parse creates a few container objects per node and no cycles; left running, the
    collector rescans the growing tree again and again, which doubles the time of a 1 MB file.
    What cycles the work leaves are collected as usual afterwards, so memory stays flat.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def format_from_path(path: str) -> str | None:
    """"json" or "yaml" by the file's suffix, or None when the suffix says neither."""
    lower = path.lower()
    if lower.endswith(".json"):
        return "json"
    if lower.endswith((".yaml", ".yml")):
        return "yaml"
    return None
