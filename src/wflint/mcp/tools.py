"""The tools' work, as plain functions of plain values (the server in ``server`` only wires
them to the protocol, so tests and other programs can call them too). Each returns a
dictionary shaped as its output model in ``shapes``, or raises ``BadInput``.

Everything is the library's: findings from ``api`` (the same as ``wflint check``), fixes from
``fix`` (``wflint fix``'s), runs from ``simulate`` and ``engine`` (``wflint simulate``'s),
pictures from ``graph``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..api import Inspection, inspect_bytes
from ..model.releases import NEWEST
from ..core.diagnostics import Diagnostic, at_or_above
from ..document.parse import parse
from ..document.source import SourceFile
from .findings import MAX_TEXT_CHARS, finding, fixes_for
from .inputs import BadInput, Workflow, read_workflow

#: findings per page unless the caller asks for another number, and the most it may ask for
DEFAULT_PAGE, MOST_PAGE = 50, 200
#: characters of an edited text or diff per page
TEXT_PAGE = 100_000
#: trace rows per case per page
TRACE_PAGE = 50
#: cases per simulate call, and the characters of each case's timeline
MOST_CASES, TIMELINE_CHARS = 50, 20_000


def _inspect(wf: Workflow) -> Inspection:
    inspection = inspect_bytes(wf.text.encode("utf-8", "surrogatepass"), wf.shown, wf.config)
    assert inspection is not None  # not asked to require a workflow: never None
    return inspection


def _page(offset: int, limit: int | None, most: int, default: int) -> tuple[int, int]:
    if offset < 0:
        raise BadInput("bad_argument", "offset must be 0 or more")
    if limit is not None and limit < 1:
        raise BadInput("bad_argument", "limit must be 1 or more")
    return offset, min(limit or default, most)


def verdict(diags: list[Diagnostic]) -> dict[str, Any]:
    """The service's answer to saving the file: accepted, or the status of the first rejection
    its pipeline meets, with its exact detail where wflint knows it and the finding's words."""
    refusing = [d for d in diags if d.service is not None]
    if not refusing:
        return {"accepts": True, "status": 200, "detail": None, "code": None, "reason": None}
    first = min(refusing, key=lambda d: tuple((0, x) if isinstance(x, (int, float)) else (1, str(x))
                                              for x in d.service.order))  # type: ignore[union-attr]
    service = first.service
    assert service is not None
    detail = None if service.detail is None else service.detail[:MAX_TEXT_CHARS]
    return {"accepts": False, "status": service.status, "detail": detail, "code": first.code,
            "reason": first.message[:MAX_TEXT_CHARS]}


def summary_of(diags: list[Diagnostic], fail_level: str) -> dict[str, Any]:
    return {
        "total": len(diags),
        "clean": not diags,
        "fails": any(at_or_above(d.severity, fail_level) for d in diags),
        "by_severity": dict(Counter(d.severity for d in diags)),
        "by_code": dict(sorted(Counter(d.code for d in diags).items())),
        "service": verdict(diags),
    }


def check(text: str | None = None, path: str | None = None, target_version: str | None = None,
          name: str | None = None, offset: int = 0, limit: int | None = None) -> dict[str, Any]:
    wf = read_workflow(text, path, target_version, name=name)
    offset, limit = _page(offset, limit, MOST_PAGE, DEFAULT_PAGE)
    inspection = _inspect(wf)
    diags = inspection.diagnostics
    page = diags[offset: offset + limit]
    fixes = fixes_for(page, wf.source)
    root = parse(wf.source, None, wf.config.limits).root
    inner = [w.root for w in inspection.workflows if w.root is not None]
    findings = [finding(d, wf.source, root, inner, fixes.get(i)) for i, d in enumerate(page)]
    nxt = offset + limit if offset + limit < len(diags) else None
    return {
        "file": wf.shown, "release": wf.config.target_version or NEWEST, **summary_of(diags, wf.config.fail_level),
        "offset": offset, "next_offset": nxt, "findings": findings,
        "next_step": _next_step(diags, findings, nxt),
    }


def _next_step(diags: list[Diagnostic], findings: list[dict[str, Any]], nxt: int | None) -> str:
    if not diags:
        return "clean: no findings. Call simulate to see what a run does."
    fixable = sum(1 for f in findings if f["fix"] is not None)
    parts = []
    if fixable:
        parts.append(f"{fixable} finding(s) on this page carry a fix: call fix (unsafe=true for the 'unsafe' ones), "
                     "or apply one finding's edits and check again")
    parts.append("edit the value at each finding's json_path as its message and suggestion say, then check again")
    if nxt is not None:
        parts.append(f"more findings: call check again with offset={nxt}")
    return "; ".join(parts) + "."


def fix(text: str | None = None, path: str | None = None, unsafe: bool = False, target_version: str | None = None,
        name: str | None = None, text_offset: int = 0) -> dict[str, Any]:
    from ..fix import FixError, FixInternalError, fix_text
    from ..fix.command import unified_diff

    wf = read_workflow(text, path, target_version, name=name)
    if text_offset < 0:
        raise BadInput("bad_argument", "text_offset must be 0 or more")
    try:
        result = fix_text(wf.text, wf.shown, unsafe=unsafe)
    except FixError as exc:
        raise BadInput("unparseable", f"{wf.shown}: cannot be fixed: {exc}",
                       "call check: its WF001 finding says where the syntax breaks") from None
    except FixInternalError as exc:
        raise RuntimeError(f"the fixes would not give the intended data ({exc}); nothing was changed") from None
    after = Workflow(SourceFile(result.text, wf.shown), wf.shown, wf.config)
    remaining = _inspect(after).diagnostics
    diff = unified_diff(wf.text, result.text, wf.shown) if result.changed else ""
    chunk = result.text[text_offset: text_offset + TEXT_PAGE]
    more = text_offset + TEXT_PAGE < len(result.text)
    return {
        "file": wf.shown, "changed": result.changed, "unsafe": unsafe,
        "changes": result.changes[:MOST_PAGE], "notes": result.notes[:MOST_PAGE],
        "text": chunk, "text_offset": text_offset, "text_next_offset": text_offset + TEXT_PAGE if more else None,
        "text_length": len(result.text),
        "diff": diff[:TEXT_PAGE], "diff_truncated": len(diff) > TEXT_PAGE,
        "remaining": summary_of(remaining, wf.config.fail_level),
    }


def simulate(text: str | None = None, path: str | None = None, cases: list[dict[str, Any]] | None = None,
             network: bool = False, target_version: str | None = None, name: str | None = None,
             trace_offset: int = 0, trace_limit: int | None = None) -> dict[str, Any]:
    from ..simulate.loading import LoadError, check_case, loaded_from, service_body
    from ..simulate.runs import CaseRun, run_case
    from ..simulate.timeline import render_trace

    wf = read_workflow(text, path, target_version, name=name)
    trace_offset, trace_limit = _page(trace_offset, trace_limit, MOST_PAGE, TRACE_PAGE)
    given = list(cases or [{"name": "defaults"}])
    if len(given) > MOST_CASES:
        raise BadInput("bad_argument", f"{len(given)} cases: at most {MOST_CASES} in one call",
                       "simulate the cases in several calls")
    try:
        for index, case in enumerate(given):
            if not isinstance(case, dict):
                raise LoadError(f"case {index + 1} is not a mapping")
            check_case(case, f"case {index + 1}")
        loaded = loaded_from(_inspect(wf), wf.shown, service_body(wf.text, wf.shown))
    except LoadError as exc:
        raise BadInput("bad_argument", str(exc), "a case is {name, parameters: {key: value}, tasks: {label: "
                                                 "stub}, llm: {label: answer}, blocks: {label: stub}}; read the "
                                                 "resource wflint://guide/cases") from None
    refusal = loaded.refusal()
    out = []
    for index, case in enumerate(given):
        case = {"name": case.get("name") or f"case {index + 1}", **case}
        run = CaseRun({"name": case["name"], **refusal}) if refusal else run_case(loaded.request, case, network=network)
        out.append(_case_result(run.result, render_trace(run.result, run.inputs, run.unstubbed, run.missing_secrets), run.unstubbed,
                                trace_offset, trace_limit, "save" if refusal else "run"))
    errors = [f"{d.line}:{d.column} {d.code} {d.message}"[:MAX_TEXT_CHARS] for d in loaded.errors[:5]]
    return {"file": wf.shown, "network": network, "errors_before_run": errors,
            "summary": " ".join(c["summary"] for c in out), "cases": out}


def _case_result(result: dict[str, Any], timeline: str, unstubbed: list[str], offset: int, limit: int,
                 refused: str) -> dict[str, Any]:
    """One case's run in an agent's terms. ``refused`` says what the service refuses when the
    result is an HTTP answer: to save the workflow, or to start the run (a missing parameter)."""
    name = result.get("name") or "case"
    if "http_status" in result:
        detail = str((result.get("body") or {}).get("detail"))[:MAX_TEXT_CHARS]
        what = "to save the workflow" if refused == "save" else "to start the run"
        return {"name": name, "status": "refused", "refused_status": result["http_status"], "failure_reason": detail,
                "summary": f"case {name}: the service refuses {what} (HTTP {result['http_status']}): {detail}",
                "blocks_run": [], "failed_block": None, "outputs": {}, "trace": [], "trace_total": 0,
                "trace_next_offset": None, "unstubbed": [], "timeline": timeline[:TIMELINE_CHARS]}
    trace = result.get("trace") or []
    ran = [row.get("label") for row in trace if row.get("status") != "skipped"]
    failed = next((row for row in trace if row.get("status") in ("failed", "terminated", "timed_out", "canceled")), None)
    status = result.get("status")
    words = f"case {name}: {status}; {len(ran)} block run(s)"
    if failed is not None:
        words += f"; {failed.get('label')} {failed.get('status')}: {str(failed.get('failure_reason') or '')[:300]}"
    elif result.get("failure_reason"):
        words += f"; {str(result['failure_reason'])[:300]}"
    if unstubbed:
        words += f"; ran on defaults for want of a stub: {', '.join(unstubbed[:10])}"
    rows = [_bounded(row) for row in trace[offset: offset + limit]]
    return {
        "name": name, "status": status, "refused_status": None,
        "failure_reason": _text(result.get("failure_reason")),
        "summary": words + ".", "blocks_run": ran[:MOST_PAGE],
        "failed_block": None if failed is None else failed.get("label"),
        "outputs": _bounded(result.get("outputs") or {}), "trace": rows, "trace_total": len(trace),
        "trace_next_offset": offset + limit if offset + limit < len(trace) else None,
        "unstubbed": unstubbed, "timeline": timeline[:TIMELINE_CHARS],
    }


def _text(value: Any) -> str | None:
    return None if value is None else str(value)[:MAX_TEXT_CHARS]


def _bounded(value: Any, depth: int = 0) -> Any:
    """``value`` with long strings cut and long lists and deep nesting summarised: a run's
    outputs can hold whole pages."""
    if isinstance(value, str):
        return value if len(value) <= MAX_TEXT_CHARS else value[: MAX_TEXT_CHARS - 1] + "…"
    if depth > 8:
        return "…"
    if isinstance(value, dict):
        return {str(k): _bounded(v, depth + 1) for k, v in list(value.items())[:MOST_PAGE]}
    if isinstance(value, (list, tuple)):
        items = [_bounded(v, depth + 1) for v in value[:MOST_PAGE]]
        return items + ([f"… {len(value) - MOST_PAGE} more"] if len(value) > MOST_PAGE else [])
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return str(value)[:MAX_TEXT_CHARS]


def graph(text: str | None = None, path: str | None = None, parameters: bool = False,
          target_version: str | None = None, name: str | None = None) -> dict[str, Any]:
    from ..graph import pictures_of, render

    wf = read_workflow(text, path, target_version, name=name)
    drawn = pictures_of(_inspect(wf), parameters=parameters)
    pictures = [{"index": p.index, "title": p.drawing.title if p.drawing else None,
                 "mermaid": render(p, "mermaid")[:TEXT_PAGE] if p.drawing else None,
                 "problem": p.problem, "findings": len(p.diagnostics)} for p in drawn]
    first = next((p["mermaid"] for p in pictures if p["mermaid"]), None)
    return {"file": wf.shown, "mermaid": first, "workflows": pictures}
