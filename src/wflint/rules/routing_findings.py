"""The routing graph's findings (stage F) for the rules that own their kinds (WF302,
WF304), with the verdict that places each in the service's pipeline."""

from __future__ import annotations

from .. import graph
from ..view import Workflow
from .verdicts import service_verdict


def scope_index(wf: Workflow, loop: Block | None) -> int:
    for i, (owner, _) in enumerate(graph.scopes(wf)):
        if owner is loop:
            return i
    return 0


def graph_findings(wf: Workflow, kind: str):
    """The stage-F findings of one kind, as (finding, scope members by label, verdict): the
    verdict carries the service's message and its place in the pipeline (scope, step, rank)."""
    all_scopes = graph.scopes(wf)
    rank = 0
    for position, finding in graph.workflow_findings(wf):
        if finding.kind != kind:
            continue
        rank += 1
        _, members = all_scopes[position]
        by_label = {b.label: b for b in members if b.label is not None}
        yield finding, by_label, service_verdict(422, finding.message, "F", position, graph.STEP[kind], rank)
