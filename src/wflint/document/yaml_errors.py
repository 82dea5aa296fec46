"""How a YAML problem is described: PyYAML-style problems and marks, their wording, and the
service's verdict on them.

The service reads a workflow with PyYAML's pure-Python parser and answers a document it cannot
read with ``Invalid YAML: <problem> at line L, column C (<context> ...)``; ``_verdict`` builds
that reply from a ``_Problem`` so a diagnostic can say exactly what the service would.
"""

from __future__ import annotations

from ..core.diagnostics import ServiceVerdict
from .nodes import Node


class _Problem(Exception):
    """A reason the document cannot be read, with PyYAML-style problem and context marks."""

    def __init__(
        self,
        problem: str,
        problem_mark,
        context: str | None = None,
        context_mark=None,
        exact: bool = True,
        message: str | None = None,
        limit: bool = False,
    ):
        super().__init__(problem)
        #: one of wflint's limits was reached (WF007), not a syntax error
        self.limit = limit
        #: our wording, when PyYAML's reads badly
        self.message = message
        self.problem, self.problem_mark = problem, problem_mark
        self.context, self.context_mark = context, context_mark
        #: whether the service's parser says exactly this (service verdict known)
        self.exact = exact

    @classmethod
    def of(cls, exc, exact: bool = True) -> "_Problem":
        """The problem a PyYAML ``MarkedYAMLError`` reports."""
        return cls(exc.problem or str(exc), exc.problem_mark, exc.context, exc.context_mark, exact)


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


def _pairs_context(tag: str) -> str:
    """PyYAML's context for a malformed ``!!omap`` or ``!!pairs``."""
    return "while constructing an ordered map" if tag.endswith("omap") else "while constructing pairs"


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
