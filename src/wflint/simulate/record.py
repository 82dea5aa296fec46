"""``wflint record``: a test case written from a real run.

The run is read back through the run API any server speaking it answers (the service, a
self-hosted one, ``wflint serve``): ``GET /v1/runs/{run_id}`` for its status, reason, parameters
and outputs, ``GET /v1/runs/{run_id}/timeline`` for its block executions. From the local
workflow file and those, a case is written that reproduces the run offline:

* ``parameters``: the run's, secret-bearing ones left out;
* ``secrets``: every secret-bearing parameter a block uses, as a named placeholder value
  (``RECORDED_SECRET_<key>``; a credential's fields likewise): the run's values never leave it;
* stubs for what needs the outside world, one entry per execution in the order they ran: the
  agent's outcome of each task block (``tasks``), each text_prompt's answer (``llm``), each
  HTTP request's answer as an ``http:`` rule answering once (``times: 1``), the results of
  natural-language branch criteria (``prompt_branches``), and the recorded output of any block
  the simulator does not run (``blocks``); code, conditionals, loops, wait and terminate run
  for real;
* ``expect``: the run's status (and failure reason), its path, every block's status, and the
  outputs of its code and text_prompt blocks.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from ..engine import secrets as secret_params
from ..engine.secrets import MASK
from ..engine.semantics import TASK_BLOCK_TYPES

#: blocks the simulator runs for real from their definition: no stub is recorded for them
RUN_FOR_REAL = frozenset({"code", "conditional", "for_loop", "while_loop", "wait", "terminate", "http_request",
                          "text_prompt"})
#: the outputs an expectation keeps (others hold ids and timings that differ from run to run)
EXPECTED_OUTPUTS = frozenset({"code", "text_prompt"})
SECRET_PLACEHOLDER = "RECORDED_SECRET_{name}"


class RecordError(Exception):
    """The run cannot be read or turned into a case (exit 2)."""


def fetch(base_url: str, run_id: str, api_key: str | None, timeout: float = 30) -> tuple[dict[str, Any], list[Any]]:
    """The run reply and its timeline from a server speaking the run API."""
    def get(path: str) -> Any:
        url = base_url.rstrip("/") + path
        request = urllib.request.Request(url, headers={"x-api-key": api_key or "", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - the user's server
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise RecordError(f"GET {url}: HTTP {exc.code}: {exc.read()[:300].decode('utf-8', 'replace')}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise RecordError(f"GET {url}: {getattr(exc, 'reason', exc)}") from None

    quoted = urllib.parse.quote(run_id, safe="")
    run = get(f"/v1/runs/{quoted}")
    timeline = get(f"/v1/runs/{quoted}/timeline")
    if not isinstance(run, dict) or not isinstance(timeline, list):
        raise RecordError(f"{base_url}: the run API answered something that is not a run and its timeline")
    return run, timeline


def executions(timeline: list[Any]) -> list[dict[str, Any]]:
    """The timeline's block rows in the order they started (the API lists each level newest first)."""
    rows: list[dict[str, Any]] = []

    def walk(items: list[Any]) -> None:
        for item in reversed(items):
            if isinstance(item, dict) and item.get("type", "block") == "block" and isinstance(item.get("block"), dict):
                rows.append(item["block"])
                walk(item.get("children") or [])

    walk(timeline)
    return rows


def _secret_value(param: dict[str, Any]) -> Any:
    key = str(param["key"])
    if secret_params.secret_kind(param) == "single":
        return SECRET_PLACEHOLDER.format(name=key)
    fields = secret_params.CREDENTIAL_FIELDS.get(secret_params.type_name(param), ("username", "password")) or ("value",)
    return {field: SECRET_PLACEHOLDER.format(name=f"{key}_{field}") for field in fields if field != "totp"}


def _task_outcome(row: dict[str, Any]) -> dict[str, Any]:
    output = row.get("output") if isinstance(row.get("output"), dict) else {}
    outcome: dict[str, Any] = {"status": row.get("status") or "completed"}
    if output.get("extracted_information") is not None:
        outcome["extracted_information"] = output["extracted_information"]
    if row.get("failure_reason"):
        outcome["failure_reason"] = row["failure_reason"]
    return outcome


def _llm_answer(row: dict[str, Any]) -> Any:
    if row.get("status") != "completed":
        reason = str(row.get("failure_reason") or "")
        return {"raise": reason.removeprefix("LLM call failed: ") or "the LLM call failed"}
    output = row.get("output")
    if isinstance(output, dict) and set(output) == {"llm_response"}:
        return output["llm_response"]
    return output


def _http_rule(row: dict[str, Any]) -> dict[str, Any] | None:
    output = row.get("output") if isinstance(row.get("output"), dict) else {}
    method, url = output.get("request_method"), output.get("request_url")
    if not url:
        return None
    rule: dict[str, Any] = {"method": method or "GET", "url": url, "times": 1}
    if MASK in url:  # a secret the service masked: any text stands for it (the replay sends the placeholder value)
        del rule["url"]
        rule["url_matches"] = "^" + ".+".join(re.escape(part) for part in url.split(MASK)) + "$"
    if output.get("error_type") == "timeout":
        rule["timeout"] = True
    elif "status_code" in output:
        rule["status"] = output["status_code"]
        headers = {k: v for k, v in (output.get("response_headers") or {}).items()
                   if k.lower() in ("content-type", "location") or k.lower().startswith("x-")}
        if headers:
            rule["headers"] = headers
        rule["body"] = output.get("response_body")
    else:
        rule["error"] = str(output.get("error") or row.get("failure_reason") or "the request failed")
    return rule


def _prompt_results(row: dict[str, Any]) -> list[bool] | None:
    output = row.get("output") if isinstance(row.get("output"), dict) else {}
    prompts = [e for e in output.get("evaluations") or [] if isinstance(e, dict) and e.get("criteria_type") == "prompt"]
    return [bool(e.get("result")) for e in prompts] if prompts else None


def case_from_run(request: dict[str, Any], run: dict[str, Any], timeline: list[Any], name: str) -> dict[str, Any]:
    """The test case that reproduces ``run`` of the workflow ``request`` (see the module)."""
    definition = request.get("workflow_definition") or {}
    declared = [p for p in definition.get("parameters") or [] if isinstance(p, dict) and isinstance(p.get("key"), str)]
    secret_keys = {p["key"] for p in declared if secret_params.secret_kind(p) is not None}
    workflow_keys = {p["key"] for p in declared if p.get("parameter_type", "workflow") == "workflow"}
    given = run.get("parameters")
    if not isinstance(given, dict):
        given = (run.get("run_request") or {}).get("parameters") if isinstance(run.get("run_request"), dict) else None
    parameters = {k: v for k, v in (given or {}).items() if k in workflow_keys and k not in secret_keys}

    case: dict[str, Any] = {"name": name}
    if parameters:
        case["parameters"] = parameters
    needed = [p for p in declared if p["key"] in secret_keys and secret_params.needed(definition, p["key"])]
    if needed:
        case["secrets"] = {p["key"]: _secret_value(p) for p in needed}
    tables: dict[str, dict[str, list[Any]]] = {"tasks": {}, "llm": {}, "prompt_branches": {}, "blocks": {}}
    http: list[dict[str, Any]] = []
    rows = executions(timeline)
    for row in rows:
        label, kind = row.get("label"), row.get("block_type")
        if not isinstance(label, str):
            continue
        if kind in TASK_BLOCK_TYPES:
            tables["tasks"].setdefault(label, []).append(_task_outcome(row))
        elif kind == "text_prompt":
            tables["llm"].setdefault(label, []).append(_llm_answer(row))
        elif kind == "http_request":
            rule = _http_rule(row)
            if rule is not None:
                http.append(rule)
        elif kind in ("conditional", "while_loop"):
            results = _prompt_results(row)
            if results is not None:
                tables["prompt_branches"].setdefault(label, []).append(results)
        elif kind not in RUN_FOR_REAL:
            stub: dict[str, Any] = {"status": row.get("status") or "completed", "output": row.get("output")}
            if row.get("failure_reason"):
                stub["failure_reason"] = row["failure_reason"]
            tables["blocks"].setdefault(label, []).append(stub)
    for table, entries in tables.items():
        if entries:
            # one entry per execution; a single execution needs no list
            case[table] = {label: (values[0] if len(values) == 1 else values) for label, values in entries.items()}
    if http:
        case["http"] = http
    case["expect"] = _expectations(run, rows)
    return case


def _expectations(run: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    expect: dict[str, Any] = {"status": run.get("status")}
    if run.get("failure_reason"):
        expect["failure_reason"] = run["failure_reason"]
    expect["path"] = [row.get("label") for row in rows]
    statuses: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.get("label")] = counts.get(row.get("label"), 0) + 1
    seen: dict[str, int] = {}
    for row in rows:
        label = row.get("label")
        index = seen.get(label, 0)
        seen[label] = index + 1
        spec = label if counts[label] == 1 else f"{label}[{row.get('current_index', index)}]"
        if counts[label] > 1 and row.get("current_index") is None:
            continue  # repeated outside a loop: LABEL[i] could not name it
        statuses[spec] = row.get("status")
    expect["blocks"] = statuses
    outputs = run.get("output") if isinstance(run.get("output"), dict) else run.get("outputs")
    kinds = {row.get("label"): row.get("block_type") for row in rows}
    kept = {key: value for key, value in (outputs or {}).items()
            if key.endswith("_output") and kinds.get(key[: -len("_output")]) in EXPECTED_OUTPUTS}
    if kept:
        expect["outputs"] = kept
    return expect


def test_file_text(workflow_name: str | None, case: dict[str, Any]) -> str:
    """The test file holding the case (YAML; the workflow named when it is not beside it)."""
    import yaml

    data: dict[str, Any] = {}
    if workflow_name:
        data["workflow"] = workflow_name
    data["cases"] = [case]
    header = ("# Recorded by `wflint record` from a real run. Secrets are named placeholders: the run's\n"
              "# values never leave it. Replay it with `wflint test`.\n")
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
