"""Findings of one cause shown as one: an export's output-parameter errors under its WF012.

A file holding the service's stored form of a workflow (WF012: a GET answer, an export) carries
an ``output`` parameter for every block. Read as a request, each is refused twice: declared
output parameter (WF208) and a key reserved for that block's output (WF207). Ten errors for a
five-block export say one thing, "this is an export: convert it" (``wflint fix``), and bury the
findings that are the file's own. So the WF208 of a file with a WF012, and the WF207 of the
same keys, go into that WF012's ``related``: the WF012 takes their highest severity (the save
is still refused: the exit status does not change) and the service's answer to the first, and
its message counts them. Each stays a whole diagnostic, listed by ``--format json`` and SARIF
(``relatedLocations``); ``wflint check --show-grouped`` does not group them.

Pure: diagnostics in, diagnostics out; run after suppressions and ``--select``/``--ignore`` so
a finding the user turned off is never counted, and a WF012 turned off groups nothing.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Sequence

from ..core.diagnostics import SEVERITY_RANK, Diagnostic, finalize
from ..core.records import replace

STORED_FORM = "WF012"
OUTPUT_DECLARED = "WF208"
RESERVED_KEY = "WF207"
#: the quoted parameter key both messages start with
_KEY = re.compile(r"^parameter (?:key )?'([^']*)'")


def _key(d: Diagnostic) -> str | None:
    m = _KEY.match(d.message)
    return m.group(1) if m else None


def group(diags: Sequence[Diagnostic]) -> list[Diagnostic]:
    """``diags`` with each stored form's output-parameter findings grouped under its WF012."""
    heads = {d.path: d for d in diags if d.code == STORED_FORM}
    if not heads:
        return list(diags)
    output_keys: dict[str, set[str]] = defaultdict(set)
    for d in diags:
        if d.code == OUTPUT_DECLARED and d.path in heads:
            output_keys[d.path].add(_key(d) or "")
    grouped: dict[str, list[Diagnostic]] = defaultdict(list)
    kept: list[Diagnostic] = []
    for d in diags:
        if d.path in heads and (d.code == OUTPUT_DECLARED
                                or (d.code == RESERVED_KEY and _key(d) in output_keys[d.path])):
            grouped[d.path].append(d)
        else:
            kept.append(d)
    if not grouped:
        return list(diags)
    return finalize(_head(d, grouped[d.path]) if d.code == STORED_FORM and grouped.get(d.path) else d for d in kept)


def _head(head: Diagnostic, members: list[Diagnostic]) -> Diagnostic:
    members = finalize(members)
    severity = max([head.severity, *(m.severity for m in members)], key=SEVERITY_RANK.__getitem__)
    verdicts = [m.service for m in members if m.service is not None]
    service = head.service or (verdicts[0] if verdicts else None)
    counts = Counter((m.code, m.name) for m in members)
    parts = ", ".join(f"{n} {code} {name}" for (code, name), n in sorted(counts.items()))
    findings = "finding" if len(members) == 1 else "findings"
    message = (f"{head.message}; its {len(members)} output-parameter {findings} ({parts}) are grouped here: "
               "`wflint check --show-grouped` lists each")
    return replace(head, severity=severity, service=service, message=message, related=tuple(members))
