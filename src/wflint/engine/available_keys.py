"""``get_available_keys`` (skyvern/utils/templating.py): the reference paths a failing template
could have used, listed in a block's failure output (``available_keys``)."""

from __future__ import annotations

import json
import keyword
from typing import Any

from jinja2 import nodes
from jinja2.sandbox import SandboxedEnvironment

MAX_KEYS, MAX_KEY_LENGTH, MAX_PATH_LENGTH = 200, 128, 512
_RESERVED = frozenset(word.lower() for word in keyword.kwlist) | {"true", "false", "none"}
_PARSER = SandboxedEnvironment()


def _extend(path: str, segment: str | int) -> str | None:
    if isinstance(segment, int):
        return f"{path}[{segment}]" if path else None
    if len(segment) > MAX_KEY_LENGTH:
        return None
    if segment.isidentifier() and segment.lower() not in _RESERVED:
        if not path:
            return segment
        if not hasattr(dict, segment):
            return f"{path}.{segment}"
    return f"{path}[{json.dumps(segment)}]" if path else None


def _flatten(node: nodes.Node) -> tuple[str, list[str | int]] | None:
    segments: list[str | int] = []
    while isinstance(node, (nodes.Getattr, nodes.Getitem)):
        if isinstance(node, nodes.Getattr):
            segments.append(node.attr)
        else:
            if not isinstance(node.arg, nodes.Const) or not isinstance(node.arg.value, (str, int)):
                return None
            segments.append(node.arg.value)
        node = node.node
    if not isinstance(node, nodes.Name):
        return None
    segments.reverse()
    return node.name, segments


def _descend(data: dict[str, Any], root: str, segments: list[str | int]) -> tuple[str, Any]:
    current: Any = data
    path = ""
    for segment in [root, *segments]:
        if isinstance(current, dict) and segment in current:
            descended = current[segment]
        elif isinstance(current, list) and isinstance(segment, int) and -len(current) <= segment < len(current):
            descended = current[segment]
        else:
            return path, current
        extended = _extend(path, segment)
        if extended is None:
            return path, current
        path, current = extended, descended
    return path, current


def available_keys(source: str, data: dict[str, Any]) -> list[str]:
    reachable: set[str] = set()
    roots: set[str] = set()

    def add(into: set[str], entry: str | None) -> None:
        if entry and len(entry) <= MAX_PATH_LENGTH:
            into.add(entry)

    try:
        for key in data:
            if isinstance(key, str):
                add(roots, _extend("", key))
        tree = _PARSER.parse(source)
        chains = list(tree.find_all((nodes.Getattr, nodes.Getitem)))
        nested = {id(chain.node) for chain in chains}
        for chain in chains:
            if id(chain) in nested:
                continue
            flattened = _flatten(chain)
            if flattened is None:
                continue
            path, resolved = _descend(data, *flattened)
            if path and isinstance(resolved, dict):
                for key in resolved:
                    if isinstance(key, str) or (isinstance(key, int) and not isinstance(key, bool)):
                        add(reachable, _extend(path, key))
    except Exception:  # noqa: BLE001 - as the engine: what was gathered so far
        pass
    return (sorted(reachable) + sorted(roots - reachable))[:MAX_KEYS]
