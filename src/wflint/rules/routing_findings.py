"""The routing graph's findings (stage F) for the rules that own their kinds (WF302,
WF304), with the verdict that places each in the service's pipeline."""

from __future__ import annotations

from ..workflow import routing
from ..workflow.view import Block, Workflow
from .verdicts import service_verdict


def scope_index(wf: Workflow, loop: Block | None) -> int:
    for i, (owner, _) in enumerate(routing.scopes(wf)):
        if owner is loop:
            return i
    return 0


def graph_findings(wf: Workflow, kind: str):
    """The stage-F findings of one kind, as (finding, scope members by label, verdict): the
    verdict carries the service's message and its place in the pipeline (scope, step, rank)."""
    all_scopes = routing.scopes(wf)
    rank = 0
    for position, finding in routing.workflow_findings(wf):
        if finding.kind != kind:
            continue
        rank += 1
        _, members = all_scopes[position]
        by_label = {b.label: b for b in members if b.label is not None}
        yield finding, by_label, service_verdict(422, finding.message, "F", position, routing.STEP[kind], rank)


def closing_note(edge):
    """Words for an implicit closing edge (a chain continuing at a merge point)."""
    if edge.via[0] != "merge":
        return ""
    return f" (block '{edge.source}' has no next_block_label, so it continues at the merge point '{edge.target}' of conditional '{edge.via[1]}')"
