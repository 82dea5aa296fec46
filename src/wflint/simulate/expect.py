"""A case's expectations judged against its trace.

An expected value is matched as follows: a mapping with one key ``equals``, ``contains`` or
``matches`` is an operator (exact equality; substring, list member or sub-mapping; a regular
expression searched in the text); any other mapping matches a mapping that has at least those
keys with matching values; anything else must be equal. Block and input expectations name a
block by label (its last execution) or ``label[i]`` (its execution in loop iteration ``i``).
``requests`` entries select the HTTP requests the run made (``engine.http_double``) and count
them. Besides the expectations, a run fails its case when a block needed a secret the case
does not give, or, hermetic, made a request no ``http:`` rule answered.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..engine.http_double import shown

OPERATORS = ("equals", "contains", "matches")


@dataclass
class Failure:
    """One unmet expectation: what was expected, the trace excerpt that was found, and why that
    excerpt is null when it is."""

    what: str
    expected: Any
    actual: Any
    why: str | None = None

    def text(self) -> str:
        text = f"{self.what}\n  expected: {_show(self.expected)}\n  actual:   {_show(self.actual)}"
        return text + (f"\n  why:      {self.why}" if self.why else "")


def _show(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    limit = 2000 if "\n" in text else 600  # a list of requests, one a line
    return text if len(text) <= limit else text[:limit - 3] + "..."


def matches(expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)) in OPERATORS:
        op, want = next(iter(expected.items()))
        if op == "equals":
            return want == actual
        if op == "contains":
            if isinstance(actual, str):
                return isinstance(want, str) and want in actual
            if isinstance(actual, list):
                return any(matches(want, item) for item in actual)
            if isinstance(actual, dict):
                return isinstance(want, dict) and matches(want, actual)
            return False
        text = actual if isinstance(actual, str) else json.dumps(actual, default=str)
        try:
            return re.search(str(want), text) is not None
        except re.error:
            return False
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(k in actual and matches(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, float) or isinstance(actual, float):
        return isinstance(actual, (int, float)) and not isinstance(actual, bool) and float(expected) == float(actual)
    return expected == actual


def _select(label_spec: str, rows: list[dict[str, Any]]) -> tuple[int | None, str]:
    """The row index for ``label`` (last execution) or ``label[i]`` (iteration i)."""
    found = re.fullmatch(r"(.+)\[(\d+)\]", label_spec)
    label, iteration = (found.group(1), int(found.group(2))) if found else (label_spec, None)
    picked = None
    for i, row in enumerate(rows):
        if row.get("label") == label and (iteration is None or row.get("index") == iteration):
            picked = i
    return picked, label


def judge(expect: dict[str, Any], run: Any, case: dict[str, Any] | None = None, *,
          hermetic: bool = False) -> list[Failure]:
    """The unmet expectations of a case's run (``runs.CaseRun``), and what the run itself got
    wrong: a secret a block needs that the case does not give, a request no ``http:`` rule
    answered in a hermetic run."""
    case = case or {}
    failures = [Failure(f"secret {key} is not set", f"a value for {key} under secrets:",
                        "unset: the block rendered a stand-in instead of the engine's placeholder",
                        "a block refers to it; give it in the case's (or the file's) secrets: table")
                for key in run.missing_secrets]
    if hermetic:
        failures.extend(Failure("a request no http: rule answers (the run is hermetic: the network is off)",
                                "an http: rule matching it", shown(request))
                        for request in run.requests if request.get("answered_by") == "none")
    failures.extend(_judge(expect, run, case))
    return failures


def _judge(expect: dict[str, Any], run: Any, case: dict[str, Any]) -> list[Failure]:
    result, inputs = run.result, run.inputs
    failures: list[Failure] = []
    if "http_status" in result:
        want = expect.get("http_status")
        if want is None:
            return [Failure("the run was refused before it started", expect.get("status", "a run"),
                            {"http_status": result["http_status"], "body": result.get("body")})]
        if not matches(want, result["http_status"]):
            failures.append(Failure("http_status", want, result["http_status"]))
        if "detail" in expect and not matches(expect["detail"], (result.get("body") or {}).get("detail")):
            failures.append(Failure("refusal detail", expect["detail"], (result.get("body") or {}).get("detail")))
        return failures
    if "http_status" in expect:
        return [Failure("http_status (the run was not refused)", expect["http_status"], result.get("status"))]
    rows = result.get("trace") or []
    path = [row.get("label") for row in rows]
    for key in ("status", "failure_reason"):
        if key in expect and not matches(expect[key], result.get(key)):
            failures.append(Failure(f"run {key}", expect[key], result.get(key)))
    if "path" in expect and not matches(expect["path"], path):
        failures.append(Failure("path (labels in the order they ran)", expect["path"], path))
    for label in expect.get("visits") or []:
        if label not in path:
            failures.append(Failure(f"visits {label}", f"{label} runs", path))
    for label in expect.get("does_not_visit") or []:
        if label in path:
            failures.append(Failure(f"does not visit {label}", f"{label} never runs", path))
    for spec, want in (expect.get("blocks") or {}).items():
        index, label = _select(str(spec), rows)
        if index is None:
            failures.append(Failure(f"block {spec}", want, f"{label} did not run (path: {path})"))
            continue
        row = rows[index]
        if isinstance(want, str):
            want = {"status": want}
        for field, value in (want or {}).items():
            if field == "runs":
                count = path.count(label)
                if not matches(value, count):
                    failures.append(Failure(f"block {spec} runs", value, count))
            elif not matches(value, row.get(field)):
                failures.append(Failure(f"block {spec} {field}", value, row.get(field),
                                        why_null(row, field, case, run) if row.get(field) is None else None))
    for spec, want in (expect.get("inputs") or {}).items():
        index, label = _select(str(spec), rows)
        if index is None:
            failures.append(Failure(f"inputs of {spec}", want, f"{label} did not run (path: {path})"))
            continue
        seen = inputs[index] if index < len(inputs) else {}
        for field, value in (want or {}).items():
            if not matches(value, seen.get(field)):
                failures.append(Failure(f"input {field} of {spec}", value, seen.get(field),
                                        why_null(rows[index], field, case, run, rendered=True)
                                        if seen.get(field) is None else None))
    if "outputs" in expect and not matches(expect["outputs"], result.get("outputs") or {}):
        failures.append(Failure("run outputs", expect["outputs"], _excerpt(expect["outputs"], result.get("outputs"))))
    if "errors" in expect and not matches(expect["errors"], result.get("errors")):
        failures.append(Failure("run errors", expect["errors"], result.get("errors")))
    if "llm_prompts" in expect and not matches(expect["llm_prompts"], result.get("llm_prompts")):
        failures.append(Failure("llm prompts", expect["llm_prompts"], result.get("llm_prompts")))
    for index, want in enumerate(expect.get("requests") or []):
        failures.extend(_requests(index, want, run.requests))
    return failures


def _requests(index: int, want: dict[str, Any], requests: list[dict[str, Any]]) -> list[Failure]:
    """``requests[i]``: the requests matching every key but ``count``, and how many there are."""
    chosen = [r for r in requests
              if (want.get("block") is None or r.get("block") == want["block"])
              and all(matches(want[key], r.get(key)) for key in ("method", "url", "headers", "body") if key in want)]
    filters = {k: v for k, v in want.items() if k != "count"}
    # one request a line, under the "actual:" label
    seen = ("\n" + " " * 12).join(shown(r) for r in requests) or "no request was made"
    if "count" in want:
        if not matches(want["count"], len(chosen)):
            return [Failure(f"requests[{index}] count: {len(chosen)} request(s) match {json.dumps(filters, default=str)}",
                            want["count"], seen)]
        return []
    if not chosen:
        return [Failure(f"requests[{index}]: no request matches", filters, seen,
                        None if requests else "no http_request block made a request (a blocks: stub renders nothing)")]
    return []


def why_null(row: dict[str, Any], field: str, case: dict[str, Any], run: Any, *, rendered: bool = False) -> str:
    """Why a block's ``field`` (an output field, or with ``rendered`` one of its inputs) is null."""
    label, kind = row.get("label"), row.get("block_type")
    if label in (case.get("blocks") or {}):
        return (f"a blocks: stub replaces {label}: nothing of the block ran or rendered"
                + ("; stub what it talks to instead (tasks:, llm:, http:) to see what it renders" if rendered else ""))
    if rendered:
        from ..model.test_file import INPUT_FIELDS

        fields = INPUT_FIELDS.get("task" if kind not in INPUT_FIELDS else kind, ())
        if field not in fields:
            return f"a {kind} block renders no {field} (it renders: {', '.join(fields) or 'nothing shown'})"
        if row.get("status") == "failed":
            return f"{label} failed before it rendered {field}: {row.get('failure_reason')}"
        return f"{label} left {field} empty"
    if f"task:{label}" in run.unstubbed:
        return f"no tasks: stub for {label}: it ran on the default outcome (completed, extracted_information null)"
    if row.get("status") != "completed":
        return f"{label} {row.get('status')}: {row.get('failure_reason')}"
    if field == "output":
        return f"{label} completed with an empty output (a row keeps no empty output: {{}}, [] and '' read null)"
    return f"{label} has no {field}"


def _excerpt(expected: Any, actual: Any) -> Any:
    """Only the keys the expectation names: a whole run's outputs would drown the difference."""
    if isinstance(expected, dict) and isinstance(actual, dict) and not (
            len(expected) == 1 and next(iter(expected)) in OPERATORS):
        return {k: actual.get(k, "<missing>") for k in expected}
    return actual
