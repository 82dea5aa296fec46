"""Loading ``yaml_definition`` the way the service does (reference §6.3 B2, §8.1).

A safe loader, YAML 1.1 scalars except timestamps (``2024-01-01`` stays a string), exactly
one document. Parsing uses the fast C loader; when it fails, the document is parsed again
with the pure-Python loader, whose messages are the ones the service shows
("expected ',' or '}', but got '<stream end>'").
"""

from __future__ import annotations

from typing import Any

import yaml

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


def load_definition(text: str) -> Any:
    """The one document of ``text`` as plain data; raises ``YamlSyntaxError``."""
    try:
        return yaml.load(text, Loader=_FastLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError:
        pass
    try:
        return yaml.load(text, Loader=_PureLoader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(describe(exc)) from None
