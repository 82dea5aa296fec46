"""The documents a file holds for fixing, and helpers to walk their nodes.

A workflow file is one document. An update body holds up to two, each fixed as the service
receives it: an embedded ``yaml_definition`` (parsed from the outer string, and edited inside it
when every splice is safe there) and a ``json_definition`` object (fixed as a document sent as
JSON). JSON files get the same renames as YAML files, by the same splicing (any layout is kept,
not only 2-space indentation); YAML 1.1 quoting does not apply to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

from ..document.nodes import Node
from ..document.parse import format_from_path, parse, parse_embedded
from ..document.source import SourceFile
from .results import FixError

#: a place in a document: its keys and list indexes from the root
Path_ = tuple[Any, ...]


@dataclass
class _Doc:
    """One request to fix: the file itself, or an update body's json/yaml definition."""

    root: Node
    #: how its scalars are written: "yaml" or "json"
    syntax: str
    #: how the service receives it: "yaml" (the sanitizer runs) or "json"
    mode: str
    source: SourceFile
    #: for an embedded ``yaml_definition``: the style of the outer string; None otherwise
    outer_style: str | None = None
    #: the key holding the document in an update body, for messages
    holder: str | None = None

    @property
    def embedded(self) -> bool:
        return self.holder == "yaml_definition"

    @property
    def quote(self) -> str:
        return "'" if self.outer_style in ('"', "json") else '"'


def _format_of(path: str, text: str) -> str:
    return format_from_path(path) or ("json" if text.lstrip()[:1] in ("{", "[") else "yaml")


def _check_parsed(diags, what: str) -> None:
    """Raise ``FixError`` for the first syntax error (WF001) among ``diags``."""
    for d in diags:
        if d.code == "WF001":
            raise FixError(f"{what}: {d.message} (line {d.line}, column {d.column})")


def _documents(source: SourceFile, fmt: str) -> tuple[Node | None, list[_Doc]]:
    """The file's root node and the documents to fix in it (none when it is not a mapping)."""
    parsed = parse(source, fmt)
    _check_parsed(parsed.diagnostics, "cannot parse")
    root = parsed.root
    if root is None or root.kind != "map":
        return root, []
    syntax = parsed.format
    if not any(k in ("json_definition", "yaml_definition") for k in root.keys()):
        return root, [_Doc(root, syntax, syntax, source)]
    docs: list[_Doc] = []
    yaml_node = root.get("yaml_definition")
    if yaml_node is not None and yaml_node.is_str() and yaml_node.value != "":
        inner = parse_embedded(source, yaml_node)
        _check_parsed(inner.diagnostics, "cannot parse yaml_definition")
        if inner.root is not None and inner.root.kind == "map":
            docs.append(_Doc(inner.root, "yaml", "yaml", inner.source or source, yaml_node.style, "yaml_definition"))
    json_node = root.get("json_definition")
    if json_node is not None and json_node.kind == "map":
        docs.append(_Doc(json_node, syntax, "json", source, None, "json_definition"))
    return root, docs


# =========================================================================== node helpers


def _pairs(node: Node) -> Iterator[tuple[Node, Node]]:
    """The effective pairs of a mapping: for a repeated key only the last (the service's)."""
    last: dict[Any, int] = {}
    for i, (k, _) in enumerate(node.pairs):
        if k.kind == "scalar":
            try:
                last[k.value] = i
            except TypeError:  # pragma: no cover - scalars are hashable
                pass
    for i, (k, v) in enumerate(node.pairs):
        if k.kind != "scalar" or last.get(k.value) == i:
            yield k, v


def _get(node: Node | None, key: str) -> Node | None:
    return node.get(key) if node is not None and node.kind == "map" else None


def _blocks(def_node: Node | None) -> Iterator[tuple[Path_, Node]]:
    """Every block mapping of the ``workflow_definition`` node, depth first (a block, then its
    ``loop_blocks``), as the sanitizer walks them."""
    def walk(seq: Node | None, path: Path_) -> Iterator[tuple[Path_, Node]]:
        if seq is None or seq.kind != "seq":
            return
        for i, block in enumerate(seq.items):
            if block.kind == "map":
                yield path + (i,), block
                yield from walk(block.get("loop_blocks"), path + (i, "loop_blocks"))

    yield from walk(_get(def_node, "blocks"), ("workflow_definition", "blocks"))
