"""Loading ``yaml_definition`` the way the service does (reference §6.3 B2, §8.1).

A safe loader, YAML 1.1 scalars except timestamps (``2024-01-01`` stays a string), exactly
one document. Parsing uses the fast C loader; when it fails, the document is parsed again
with the pure-Python loader, whose messages are the ones the service shows
("expected ',' or '}', but got '<stream end>'").

The loader is bounded (``ServerLimits``): flow brackets nested past the ``depth`` limit are
refused before libyaml reads them (its flow scanner is quadratic in the nesting); the loaded
document, in which an alias is a shared reference and so costs nothing yet, is measured in
one pass over its distinct nodes before anything expands it (validation, storage): nesting,
and the nodes and string characters that aliases add. A recursive alias is refused too, and
so is text UTF-8 cannot encode (a "\\ud800" escape).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from ..protocol.limits import ServerLimits

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _without_timestamps(base: type) -> type:
    cls = type(f"NoTimestamp{base.__name__}", (base,), {})
    cls.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    return cls


_PureLoader = _without_timestamps(yaml.SafeLoader)
_FastLoader = _without_timestamps(getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class YamlSyntaxError(ValueError):
    """``detail`` is the service's 422 message."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _mark(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}"


def describe(exc: yaml.YAMLError) -> str:
    """``Invalid YAML: {problem} at line L, column C`` + `` ({context} at line L, column C)``."""
    if isinstance(exc, yaml.MarkedYAMLError):
        text = exc.problem or ""
        if exc.problem_mark is not None:
            text += f" at {_mark(exc.problem_mark)}"
        if exc.context:
            ctx = exc.context
            if exc.context_mark is not None:
                ctx += f" at {_mark(exc.context_mark)}"
            text += f" ({ctx})"
        return "Invalid YAML: " + text.strip()
    return f"Invalid YAML: {exc}"


class YamlLimitError(ValueError):
    """A ``yaml_definition`` over one of the limits; the message names it."""


def _too_deep(limit: int) -> YamlLimitError:
    return YamlLimitError(f"yaml_definition is nested deeper than {limit} levels (the mock's 'depth' limit; "
                          "raise it with --limit depth=N)")


_BRACKETS = re.compile(r"[\[\]{}]")


def flow_depth(text: str, stop: int) -> int:
    """The deepest nesting of ``[]{}`` (quoted or not: an upper bound of the flow nesting),
    ending early once past ``stop``; nothing to do when too few brackets to get there."""
    if text.count("[") + text.count("{") <= stop:
        return 0
    depth = deepest = 0
    for m in _BRACKETS.finditer(text):
        if m.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > stop:
                    break
        elif depth:
            depth -= 1
    return deepest


def measure(value: Any, limits: ServerLimits) -> None:
    """Raise ``YamlLimitError`` if the loaded document nests past ``depth``, or its aliases
    add more than ``alias_nodes`` nodes or ``alias_chars`` characters, or one contains
    itself. Linear in the distinct nodes: each shared one is measured once."""
    sizes: dict[int, tuple[int, int]] = {}  # id -> (expanded nodes, expanded characters)
    distinct_nodes = distinct_chars = 0
    open_ids: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(value, 1, False)]
    while stack:
        v, depth, done = stack.pop()
        if isinstance(v, str):
            if len(v) > limits.string_chars:
                raise YamlLimitError(f"yaml_definition holds a string of {len(v)} characters, more than {limits.string_chars} "
                                     "(the mock's 'string-chars' limit; raise it with --limit string-chars=N)")
            if not v.isascii():
                try:
                    v.encode("utf-8")
                except UnicodeEncodeError:  # a "\ud800" escape: could be stored but never answered
                    raise YamlLimitError("yaml_definition holds text UTF-8 cannot encode (a lone surrogate such "
                                         "as \\ud800 in a double-quoted string)") from None
            if id(v) not in sizes:
                sizes[id(v)] = (1, len(v))
                distinct_nodes += 1
                distinct_chars += len(v)
            continue
        if not isinstance(v, (dict, list)):
            continue
        key = id(v)
        children = [x for pair in v.items() for x in pair] if isinstance(v, dict) else v
        if done:
            nodes, chars = 1, 0
            for c in children:
                n, k = sizes.get(id(c), (1, 0))
                nodes, chars = nodes + n, chars + k
            sizes[key] = (nodes, chars)
            open_ids.discard(key)
            continue
        if key in open_ids:
            raise YamlLimitError("yaml_definition contains itself through a recursive alias")
        if key in sizes:
            continue
        if depth > limits.depth:
            raise _too_deep(limits.depth)
        distinct_nodes += 1
        open_ids.add(key)
        stack.append((v, depth, True))
        stack.extend((c, depth + 1, False) for c in children)
    nodes, chars = sizes.get(id(value), (1, 0))
    if nodes - distinct_nodes > limits.alias_nodes:
        raise YamlLimitError(f"yaml_definition expands through aliases to {nodes} nodes, more than "
                             f"{limits.alias_nodes} beyond its own (the mock's 'alias-nodes' limit; "
                             "raise it with --limit alias-nodes=N)")
    if chars - distinct_chars > limits.alias_chars:
        raise YamlLimitError(f"yaml_definition expands through aliases to {chars} characters of text, more "
                             f"than {limits.alias_chars} beyond its own (the mock's 'alias-chars' limit; "
                             "raise it with --limit alias-chars=N)")


def load_definition(text: str, limits: ServerLimits | None = None) -> Any:
    """The one document of ``text`` as plain data; raises ``YamlSyntaxError``, or
    ``YamlLimitError`` for a document over ``limits``."""
    limits = limits or ServerLimits()
    if flow_depth(text, limits.depth) > limits.depth:
        raise _too_deep(limits.depth)
    try:
        try:
            value = yaml.load(text, Loader=_FastLoader)  # noqa: S506 - a safe loader
        except yaml.YAMLError:
            try:
                value = yaml.load(text, Loader=_PureLoader)  # noqa: S506 - a safe loader
            except yaml.YAMLError as exc:
                raise YamlSyntaxError(describe(exc)) from None
    except RecursionError:  # block nesting deep enough to exhaust the constructor's recursion
        raise _too_deep(limits.depth) from None
    measure(value, limits)
    return value
