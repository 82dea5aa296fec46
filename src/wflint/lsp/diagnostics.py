"""Diagnostics: exactly the findings of ``wflint check`` for the text the editor holds.

The findings come from ``api.check_source`` with the workspace's configuration and
``require_workflow``, as ``wflint check`` runs a file it finds in a directory: a file that is
not a workflow (no ``workflow_definition``, ``json_definition`` or ``yaml_definition``) gets
nothing. Each finding becomes an LSP diagnostic with its code linked to the rule's
documentation (``codeDescription``), the suggestion appended to the message, and, where the
problem has a second place, related information: the first of two duplicate labels, keys or
mapping keys, and the edges of a routing cycle.

The diagnostics are made as the protocol's JSON (``to_wire``), with nothing from pygls or
lsprotocol: the opening of a session publishes them before those are imported. ``to_lsp``
reads the same JSON into lsprotocol's types for the server's later checks, so both ways publish
the same thing.
"""

from __future__ import annotations

import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .. import api
from ..project.config import Config
from ..core.diagnostics import Diagnostic
from ..report.links import rule_anchor, rule_doc_url
from ..workflow import routing
from .documents import Document, looks_like_workflow, names

if TYPE_CHECKING:
    from lsprotocol import types as lsp

#: the protocol's DiagnosticSeverity of each severity (Error, Warning, Information)
SEVERITY = {"error": 1, "warning": 2, "info": 3}

#: findings about something that does nothing: editors show their text faded
UNNECESSARY = {"WF213", "WF900"}
#: the protocol's DiagnosticTag.Unnecessary
_TAG_UNNECESSARY = 1

#: the checkout's rule catalogue, linked when the package metadata names no repository
_LOCAL_DOCS = Path(__file__).resolve().parents[3] / "docs" / "rules.md"


def rule_link(code: str, name: str, docs_url: str | None = None) -> str | None:
    """Where a rule's documentation is: its section of ``docs_url`` (the client's
    ``rulesDocsUrl``, else the workspace configuration's ``docs-url``) when given, else of the repository's ``docs/rules.md`` (``report.links``,
    as SARIF reports link it), else of the checkout's copy; None when there is none."""
    if docs_url:
        return f"{docs_url}#{rule_anchor(code, name)}"
    public = rule_doc_url(code, name)
    if public is not None:
        return public
    return f"{_LOCAL_DOCS.as_uri()}#{rule_anchor(code, name)}" if _LOCAL_DOCS.is_file() else None


def excluded(path: str, config: Config) -> bool:
    """Whether the config's ``exclude`` patterns skip the file, as ``wflint check`` run in the
    config file's directory would."""
    if not config.exclude or not config.source:
        return False
    try:
        rel = Path(path).resolve().relative_to(Path(config.source).resolve().parent).as_posix()
    except ValueError:
        return False
    name = Path(path).name
    return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(name, pat) for pat in config.exclude)


def findings(doc: Document, config: Config) -> list[Diagnostic]:
    """``wflint check``'s findings for the document (none for a file that is not a workflow,
    or one the configuration excludes)."""
    if excluded(doc.path, config):
        return []
    if doc.too_large:
        from ..core.diagnostics import Pos, make

        zero = Pos(1, 1, 0)
        return [make("WF001", "syntax-error", "error",
                     f"the document is too large to check in the editor ({len(doc.text)} characters); "
                     "run `wflint check` on it", zero, zero, path=doc.path)]
    found = api.check_source(doc.source, config, doc.fmt, require_workflow=True)
    if found is None:
        return []  # it parses, and it is not a workflow
    if doc.parsed.root is None and not looks_like_workflow(doc.text):
        return []  # it does not parse, and names no workflow key: some other broken file
    return found


def to_wire(doc: Document, diags: list[Diagnostic], docs_url: str | None = None) -> list[dict[str, Any]]:
    """The findings as the protocol's Diagnostic JSON (fields without a value left out, as
    pygls writes them)."""
    out = []
    if doc.too_large:  # its one finding is at the start: no line table of megabytes for it
        return [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                 "message": d.message, "severity": SEVERITY.get(d.severity, SEVERITY["warning"]), "code": d.code,
                 "source": "wflint", "data": {"name": d.name}} for d in diags]
    for d in diags:
        start = doc.source.offset(d.line, d.column)
        end = doc.source.offset(d.end_line, d.end_column)
        wire: dict[str, Any] = {
            "range": doc.lines.span(start, end),
            "message": d.message + (f"\n{d.help}" if d.help else ""),
            "severity": SEVERITY.get(d.severity, SEVERITY["warning"]),
            "code": d.code,
        }
        href = rule_link(d.code, d.name, docs_url)
        if href:
            wire["codeDescription"] = {"href": href}
        wire["source"] = "wflint"
        related = _related(doc, d, start)
        if related:
            wire["relatedInformation"] = related
        if d.code in UNNECESSARY:
            wire["tags"] = [_TAG_UNNECESSARY]
        wire["data"] = {"name": d.name}
        out.append(wire)
    return out


def to_lsp(doc: Document, diags: list[Diagnostic], docs_url: str | None = None) -> list[lsp.Diagnostic]:
    """The findings as lsprotocol's Diagnostics: ``to_wire``'s JSON, read into its types."""
    return from_wire(to_wire(doc, diags, docs_url))


def from_wire(wire: list[dict[str, Any]]) -> list[lsp.Diagnostic]:
    """Diagnostic JSON read into lsprotocol's types."""
    from lsprotocol import types as lsp
    from lsprotocol.converters import get_converter

    return get_converter().structure(wire, list[lsp.Diagnostic])


# =========================================================================== second places


def _related(doc: Document, d: Diagnostic, offset: int) -> list[dict[str, Any]]:
    finder = _RELATED.get(d.code)
    if finder is None:
        return []
    try:
        places = finder(doc, offset)
    except Exception:  # noqa: BLE001 - related places are a help, never a reason to fail
        return []
    return [{"location": {"uri": doc.uri, "range": doc.lines.span(a, b)}, "message": message}
            for (a, b), message in places]


Places = list[tuple[tuple[int, int], str]]


def _duplicate_key(doc: Document, offset: int) -> Places:
    root = doc.parsed.root
    if root is None:
        return []
    for node in root.walk():
        if node.kind != "map":
            continue
        for k, _ in node.pairs:
            if k.start.offset == offset:
                first = next(k2 for k2, _ in node.pairs if k2.value == k.value)
                if first is not k:
                    return [((first.start.offset, first.end.offset), f"first '{k.value}' here")]
    return []


def _duplicate_name(kind: str) -> Callable[[Document, int], Places]:
    def find(doc: Document, offset: int) -> Places:
        for wf in doc.workflows:
            table = names(wf).labels if kind == "label" else names(wf).keys
            for name, entries in table.items():
                nodes = [n for _, n in entries]
                if len(nodes) > 1 and any(n.start.offset <= offset <= n.end.offset for n in nodes[1:]):
                    first = nodes[0]
                    return [((first.start.offset, first.end.offset), f"first {'block' if kind == 'label' else 'parameter'} named '{name}'")]
        return []
    return find


def _cycle(doc: Document, offset: int) -> Places:
    for wf in doc.workflows:
        if wf.root is None:
            continue
        for scope_index, finding in routing.workflow_findings(wf):
            if finding.kind != routing.CYCLE or finding.edge is None:
                continue
            loop, members = routing.scopes(wf)[scope_index]
            by_label = {b.label: b for b in members if b.label is not None}
            where = wf.root.at(routing.edge_path(finding.edge, by_label))
            if where is None or not where.start.offset <= offset <= where.end.offset:
                continue
            edges = {(e.source, e.target): e for e in routing.edges_of([routing.scope_block(b) for b in members])}
            out: Places = []
            cycle = finding.labels
            for i, a in enumerate(cycle):
                b = cycle[(i + 1) % len(cycle)]
                edge = edges.get((a, b))
                node = wf.root.at(routing.edge_path(edge, by_label)) if edge is not None else None
                if node is None and a in by_label:
                    node = wf.root.at(by_label[a].path + ("label",))
                if node is not None:
                    out.append(((node.start.offset, node.end.offset), f"{a} → {b}"))
            return out
    return []


_RELATED: dict[str, Callable[[Document, int], Places]] = {
    "WF003": _duplicate_key,
    "WF201": _duplicate_name("label"),
    "WF206": _duplicate_name("key"),
    "WF302": _cycle,
}
