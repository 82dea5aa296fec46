"""The JSON path: text → positioned node tree, with the service's error messages.

JSON has no positions in the standard library, so ``_json_tree`` is a small iterative parser
built on the C-accelerated ``json.decoder.scanstring``; its error messages and offsets are taken
from ``json.loads`` so they match what the service's request parser says.
"""

from __future__ import annotations

import json
from json.decoder import scanstring
from typing import Callable

from ..core.diagnostics import Diagnostic
from .nodes import Node
from ..core.diagnostics import Pos
from .source import SourceFile
from .limits import DEFAULT, Limits, exceeded
from .parse_result import ParseResult, _check_root, _diag, _key_repeated
from ..core.patterns import lazy

_WS = lazy(r"[ \t\n\r]*")
_NUMBER = lazy(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SIMPLE_STRING = lazy(r'"([^"\\\x00-\x1f]*)"')
# The separators are matched together with the simple key that usually follows them: one
# regular-expression call per member keeps the parser within a small factor of the node
# construction it cannot avoid. A key with escapes takes the slow path (``_json_key``).
_KEY = r'"([^"\\\x00-\x1f]*)"[ \t\n\r]*:[ \t\n\r]*'
_OBJECT_OPEN = lazy(r"\{[ \t\n\r]*(?:(\})|" + _KEY + ")?")
_OBJECT_NEXT = lazy(r"[ \t\n\r]*(?:(\})|,[ \t\n\r]*(?:" + _KEY + ")?)")
_ARRAY_OPEN = lazy(r"\[[ \t\n\r]*(\])?")
_ARRAY_NEXT = lazy(r"[ \t\n\r]*(?:(\])|,[ \t\n\r]*)")
_CONSTANTS = {
    "null": None, "true": True, "false": False, "NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf"),
}  # fmt: skip
_WORDS = {"n": "null", "t": "true", "f": "false", "N": "NaN", "I": "Infinity"}


class _JsonError(Exception):
    def __init__(self, message: str, index: int, limit: bool = False):
        super().__init__(message)
        self.message, self.index, self.limit = message, index, limit


def _parse_json(source: SourceFile, limits: Limits = DEFAULT) -> ParseResult:
    diags: list[Diagnostic] = []
    try:
        root = _json_tree(source, diags, limits.depth, limits.nodes)
    except _JsonError as err:
        message, index = err.message, err.index
        if err.limit:
            where = source.pos(index)
            diags = [d for d in diags if d.offset < index]
            diags.append(_diag("WF007", message, where, where, source.path))
            return ParseResult(None, diags, "json", source)
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


def _json_tree(source: SourceFile, diags: list[Diagnostic], max_depth: int, max_nodes: int) -> Node:
    """An iterative JSON parser producing positioned nodes (raises ``_JsonError``).

    ``stack`` holds the open containers; for an object, ``seen`` maps each key to its first
    node (WF003) and ``key`` is the key whose value is being read.
    """
    # nodes get offsets and ``pos`` to resolve them when a position is read (``Node.start``)
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
    nodes = 0
    while True:
        # ---- one value at i
        nodes += 1
        if nodes > max_nodes:
            raise _JsonError(exceeded("nodes", "too many values in the document", max_nodes), i, limit=True)
        c = text[i : i + 1]
        if c == '"':
            m = simple_string(text, i)
            if m is not None:
                value, j = m.group(1), m.end()
            else:
                value, j = _json_string(text, i)
            node = Node("scalar", i, j, value, "json", raw=text[i:j], where=pos)
            i = j
        elif c == "{":
            node = Node("map", i, None, pairs=[], where=pos)
            m = object_open(text, i)
            if m.group(1):
                i = m.end()
                node._end = i
            else:
                if len(stack) >= max_depth:
                    raise _too_deep(max_depth, i)
                stack.append(node)
                keys.append(key)
                seens.append(seen)
                seen = {}
                if m.group(2) is not None:
                    k0 = m.start(2) - 1
                    k1 = m.end(2) + 1
                    key = Node("scalar", k0, k1, m.group(2), "json", raw=text[k0:k1], where=pos)
                    i = m.end()
                else:
                    key, i = _json_key(text, m.end(), pos)
                continue
        elif c == "[":
            node = Node("seq", i, None, items=[], where=pos)
            m = array_open(text, i)
            i = m.end()
            if m.group(1):
                node._end = i
            else:
                if len(stack) >= max_depth:
                    raise _too_deep(max_depth, node.start.offset)
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
            node = Node("scalar", i, j, value, "json", raw=text[i:j], where=pos)
            i = j
        else:
            word = _WORDS.get(c)
            if word is None or not text.startswith(word, i):
                raise _JsonError("Expecting value", i)
            j = i + len(word)
            node = Node("scalar", i, j, _CONSTANTS[word], "json", raw=word, where=pos)
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
                        key = Node("scalar", k0, k1, m.group(2), "json", raw=text[k0:k1], where=pos)
                    else:
                        key, i = _json_key(text, i, pos)
                    break
            # the container closes here
            parent._end = i
            stack.pop()
            key = keys.pop()
            seen = seens.pop()
            node = parent


def _too_deep(max_depth: int, index: int) -> _JsonError:
    return _JsonError(exceeded("depth", "JSON nesting too deep", max_depth), index, limit=True)


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
    key = Node("scalar", i, j, value, "json", raw=text[i:j], where=pos)
    j = _WS.match(text, j).end()
    if text[j : j + 1] != ":":
        raise _JsonError("Expecting ':' delimiter", j)
    return key, _WS.match(text, j + 1).end()
