"""Counts of findings: the one-line summary the human formats end with, and ``--statistics``
(one row per rule with findings, most frequent first, as ruff prints them)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Sequence

from ..core.diagnostics import SEVERITIES, SEVERITY_RANK, Diagnostic
from ..core.records import Record, assign


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def problem_summary(diags: Sequence[Diagnostic]) -> str:
    """``Found 3 problems (2 errors, 1 warning).``"""
    counts = Counter(d.severity for d in diags)
    parts = ", ".join(_plural(counts[s], s) for s in reversed(SEVERITIES) if counts[s])
    return f"Found {_plural(len(diags), 'problem')} ({parts})."


def gate_summary(diags: Sequence[Diagnostic], fail_level: str) -> str | None:
    """Which findings failed the run, when some did: ``2 errors fail the run (fail-level:
    error); 1 warning does not.`` (None when nothing fails: the exit status is then 0)."""
    failing = Counter(d.severity for d in diags if SEVERITY_RANK[d.severity] >= SEVERITY_RANK[fail_level])
    if not failing:
        return None
    passing = Counter(d.severity for d in diags if SEVERITY_RANK[d.severity] < SEVERITY_RANK[fail_level])

    def words(counts: Counter) -> str:
        return ", ".join(_plural(counts[s], s) for s in reversed(SEVERITIES) if counts[s])

    total = sum(failing.values())
    text = f"{words(failing)} {'fail' if total != 1 else 'fails'} the run (fail-level: {fail_level})"
    if passing:
        rest = sum(passing.values())
        text += f"; {words(passing)} {'do' if rest != 1 else 'does'} not"
    return text + "."


def passing_summary(diags: Sequence[Diagnostic], fail_level: str) -> str | None:
    """Findings that did not fail the run, when there are some and none did: ``2 warnings do
    not fail the run (fail-level: error).`` A passing pre-commit hook shows its output only
    with ``verbose: true``; this line is what says it passed with findings."""
    if not diags or gate_summary(diags, fail_level) is not None:
        return None
    counts = Counter(d.severity for d in diags)
    words = ", ".join(_plural(counts[s], s) for s in reversed(SEVERITIES) if counts[s])
    return f"{words} {'does' if len(diags) == 1 else 'do'} not fail the run (fail-level: {fail_level})."


def files_summary(diags: Sequence[Diagnostic], files_checked: int) -> str:
    """One line for the terminal when the report itself went elsewhere."""
    files = _plural(files_checked, "file")
    if not diags:
        return f"All checks passed ({files})."
    return f"{problem_summary(diags)[:-1]} in {files}."


class RuleCount(Record):
    def __init__(self, code: str, name: str, severity: str, count: int) -> None:
        assign(self, locals())


def count_by_rule(diags: Sequence[Diagnostic]) -> list[RuleCount]:
    """One entry per rule with findings, most frequent first, then by code. A rule whose
    severity was changed by the configuration shows the severity its findings carry (the
    highest, if they differ)."""
    counts: Counter[str] = Counter(d.code for d in diags)
    names = {d.code: d.name for d in diags}
    severity: dict[str, str] = {}
    for d in diags:
        current = severity.get(d.code)
        if current is None or SEVERITY_RANK[d.severity] > SEVERITY_RANK[current]:
            severity[d.code] = d.severity
    return [RuleCount(code, names[code], severity[code], n) for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def render_text(rows: Sequence[RuleCount], with_total: bool = True) -> str:
    """``   12  WF104  unknown-field  warning``, columns aligned, then a total line."""
    if not rows:
        return ""
    width = len(str(max(r.count for r in rows)))
    name_width = max(len(r.name) for r in rows)
    out = [f"{r.count:>{width}}  {r.code}  {r.name:<{name_width}}  {r.severity}" for r in rows]
    if with_total:
        out.append(f"Found {_plural(sum(r.count for r in rows), 'problem')} from {_plural(len(rows), 'rule')}.")
    return "\n".join(out) + "\n"


def render_json(rows: Sequence[RuleCount]) -> str:
    data = [{"code": r.code, "name": r.name, "severity": r.severity, "count": r.count} for r in rows]
    return json.dumps(data, indent=2) + "\n"
