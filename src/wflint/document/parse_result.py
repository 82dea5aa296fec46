"""What the YAML and JSON paths share: the result type, the limits, and the diagnostics both
report the same way (WF001 syntax errors, WF002 a document that is not a mapping, WF003
repeated keys).
"""

from __future__ import annotations

from typing import Callable

from ..core.diagnostics import Diagnostic, make
from .nodes import Node
from ..core.diagnostics import Pos
from .source import SourceFile
from . import limits as _limits
from ..core.records import MutableRecord, assign, fresh

#: a function giving the positions of a start and an end offset at once
_SpanOf = Callable[[int, int], "tuple[Pos, Pos]"]

#: the default limits (``limits.Limits``): collections nested deeper than this are refused, and
#: so is a document to which aliases add more nodes (WF007)
MAX_DEPTH = _limits.DEFAULT.depth
MAX_ALIAS_NODES = _limits.DEFAULT.alias_nodes


class ParseResult(MutableRecord):
    """The tree (``None`` when the text could not be read), the problems, and the format.

    ``source`` is the file the node positions refer to: the parsed ``SourceFile``, or for
    ``parse_embedded`` an ``EmbeddedSource`` that maps the inner document into the outer file.
    """

    def __init__(self, root: Node | None, diagnostics: list[Diagnostic] = fresh(list), format: str = "yaml",  # noqa: A002
                 source: SourceFile | None = None) -> None:
        assign(self, locals())


def _diag(code: str, message: str, start: Pos, end: Pos | None, path: str, **extra) -> Diagnostic:
    name = _NAMES[code]
    return make(code, name, "error", message, start, end or start, path=path, **extra)


#: The rules both paths report. Their documentation lives with the rule modules, which sit
#: above this stage; a test holds these names equal to the registry's.
_NAMES = {
    "WF001": "syntax-error", "WF002": "not-a-mapping", "WF003": "duplicate-key", "WF005": "multiple-documents",
    _limits.CODE: _limits.NAME,
}  # fmt: skip


def _check_root(root: Node | None, empty: bool, what: str, pos0: Pos, path: str) -> list[Diagnostic]:
    """WF002 when the document is missing or is not a mapping."""
    if root is None:
        if not empty:
            return []
        msg = f"{what} is empty; a workflow definition must be a mapping (title, workflow_definition, ...)"
        return [_diag("WF002", msg, pos0, pos0, path)]
    if root.kind == "map":
        return []
    msg = (
        f"{what} holds {_describe(root)}, not a mapping; "
        "a workflow definition must be a mapping (title, workflow_definition, ...)"
    )
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
