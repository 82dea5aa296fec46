"""Runs workflows on the REAL Skyvern 1.0.56 engine, offline, and prints one normalised trace per case.

Runs INSIDE the skyvern-1.0.56 virtual environment (not wflint's):

    ~/.cache/wflint-oracle/skyvern-1.0.56/bin/python real_engine.py CASES.jsonl   (or JSON on stdin)
    ... real_engine.py --serve PORT [--stubs DIR]                                 (see README.md)

Each case is ``{"name", "workflow": <POST /v1/agents body or a YAML string>, "case": <stub table>}``
(service-runs.md): the embedded app boots once on a throwaway SQLite file in a temp dir, the seams
of ``seams.py`` stand in for the browser, the agent step and the LLM, and each case's workflow is
created, run and read back. Output: one JSON line per case, in order:

    {name, status, failure_reason, errors, outputs, trace: [{label, block_type, status, parent,
     index, value, output, failure_reason}], llm_prompts: [{label, prompt}]}

or ``{name, http_status, body}`` for a workflow or a run the service refused. This file imports
only the standard library, the release's own packages and ``seams.py``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORK = Path(tempfile.mkdtemp(prefix="wflint-engine-"))

# the engine writes ./temp, ./har, ./video, ./log relative to the cwd unless told otherwise
for _key in ("TEMP_PATH", "HAR_PATH", "VIDEO_PATH", "LOG_PATH", "ARTIFACT_STORAGE_PATH",
             "BROWSER_SESSION_BASE_PATH", "DOWNLOAD_PATH", "SCREENSHOT_PATH"):
    os.environ[_key] = str(WORK / _key.lower())
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("SKYVERN_TELEMETRY", "false")
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.setdefault("ANALYTICS_ID", "wflint-engine-oracle")
ORIGINAL_CWD = Path.cwd()
os.chdir(WORK)

CASE_TIMEOUT_S = float(os.environ.get("WFLINT_ENGINE_CASE_TIMEOUT", "120"))
ID_RE = re.compile(r"\b(?:wr|wrb|w|wpid|tsk|stp|o|a|op|wp|oat|tr|cr)_\d{12,}\b")
# engine-made ids and timestamps (a user's own `record_id` output stays)
VOLATILE_KEYS = frozenset({
    "task_id", "step_id", "workflow_run_id", "workflow_run_block_id", "workflow_id", "workflow_permanent_id",
    "organization_id", "output_parameter_id", "branch_id", "run_id", "agent_id", "agent_run_id",
    "task_screenshot_artifact_ids", "workflow_screenshot_artifact_ids", "downloaded_file_artifact_ids",
    "artifact_id", "browser_session_id", "retried_from_workflow_run_id", "retried_by_workflow_run_id",
    "created_at", "modified_at", "queued_at", "started_at", "finished_at", "next_attempt_at", "webhook_sent_at",
})
VOLATILE_HEADERS = ("date",)


def _quiet() -> None:
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.disable(logging.CRITICAL)
    try:
        import structlog

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL + 10))
    except Exception:  # noqa: BLE001 - logging set-up must never stop the run
        pass


def _private_stdout():
    """Traces go to the original stdout; anything the engine prints goes to stderr instead."""
    fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(fd, "w", encoding="utf-8", buffering=1)


# --------------------------------------------------------------------------- normalising


def normalise(value: Any) -> Any:
    """Drop ids and timestamps; reduce a loop output's ``output_parameter`` to its key."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "output_parameter" and isinstance(item, dict) and "key" in item:
                out[key] = item["key"]
                continue
            if key in VOLATILE_KEYS:
                continue
            if key in ("response_headers", "headers") and isinstance(item, dict):
                item = {k: v for k, v in item.items() if k.lower() not in VOLATILE_HEADERS}
            out[key] = normalise(item)
        return out
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str):
        return ID_RE.sub("<id>", value)
    return value


def _enum(value: Any) -> Any:
    return getattr(value, "value", value)


# --------------------------------------------------------------------------- the engine


class Engine:
    def __init__(self) -> None:
        self.client = None
        self.created: dict[str, str] = {}  # workflow JSON -> wpid
        self.startup_s = 0.0

    async def start(self) -> None:
        t0 = time.monotonic()
        from skyvern.library import embedded_server_factory as esf

        # an in-memory database cannot run workflows (its one shared connection interleaves the
        # run's sessions); the same bootstrap on a throwaway file can
        esf._SQLITE_OVERRIDE_VALUES["DATABASE_STRING"] = f"sqlite+aiosqlite:///{WORK / 'engine.db'}"
        self.client = esf.create_embedded_server(use_in_memory_db=True)
        r = await self.client.get("/v1/agents", params={"page_size": 1})
        if r.status_code != 200:
            raise RuntimeError(f"engine did not boot: {r.status_code} {r.text[:500]}")
        _quiet()
        import loopback
        import seams

        seams.install()
        self.echo_url = loopback.start()
        from skyvern.forge import app

        self.app = app
        self.startup_s = time.monotonic() - t0

    async def create(self, workflow: Any) -> tuple[str | None, dict[str, Any] | None]:
        key = json.dumps(workflow, sort_keys=True)
        if key in self.created:
            return self.created[key], None
        if isinstance(workflow, str):
            body: Any = {"yaml_definition": workflow}
        elif isinstance(workflow, dict) and ("json_definition" in workflow or "yaml_definition" in workflow):
            body = workflow
        else:
            body = {"json_definition": workflow}
        r = await self.client.post("/v1/agents", json=body)
        if r.status_code != 200:
            return None, {"http_status": r.status_code, "body": _reply(r)}
        wpid = r.json()["workflow_permanent_id"]
        self.created[key] = wpid
        return wpid, None

    async def run_case(self, case: dict[str, Any]) -> dict[str, Any]:
        import seams

        import loopback

        name = case.get("name")
        stubs_table = loopback.substitute(case.get("case") or {}, self.echo_url)
        wpid, refused = await self.create(loopback.substitute(case.get("workflow"), self.echo_url))
        if refused:
            return {"name": name, **refused}
        stubs = seams.set_case(stubs_table)
        request = {"workflow_id": wpid, "parameters": stubs_table.get("parameters") or {}}
        request.update(stubs_table.get("run") or {})
        seen = len(loopback.RECEIVED)
        r = await self.client.post("/v1/run/agents", json=request)
        if r.status_code != 200:
            return {"name": name, "http_status": r.status_code, "body": _reply(r)}
        run_id = r.json()["run_id"]
        out = await self.read_run(name, run_id, stubs)
        if loopback.RECEIVED[seen:]:
            # not part of the comparable trace: what reached the loopback server (http_request
            # blocks, webhooks), for checks on rendered bodies
            out["loopback"] = normalise([{k: v for k, v in r.items() if k not in ("headers", "raw")}
                                         for r in loopback.RECEIVED[seen:]])
        return out

    async def read_run(self, name: Any, run_id: str, stubs: Any) -> dict[str, Any]:
        run = (await self.client.get(f"/v1/runs/{run_id}")).json()
        wr = await self.app.DATABASE.workflow_runs.get_workflow_run(workflow_run_id=run_id)
        rows = await self.app.DATABASE.observer.get_workflow_run_blocks(
            workflow_run_id=run_id, organization_id=wr.organization_id
        )
        rows = sorted(rows, key=lambda b: (b.created_at, b.workflow_run_block_id))
        labels = {b.workflow_run_block_id: b.label for b in rows}
        trace = [
            {
                "label": b.label,
                "block_type": _enum(b.block_type),
                "status": _enum(b.status),
                "parent": labels.get(b.parent_workflow_run_block_id),
                "index": b.current_index,
                "value": b.current_value,
                "output": normalise(b.output),
                "failure_reason": normalise(b.failure_reason),
            }
            for b in rows
        ]
        out = {
            "name": name,
            "status": run.get("status"),
            "failure_reason": normalise(run.get("failure_reason")),
            "errors": normalise(run.get("errors") or []),
            "outputs": normalise(run.get("output")),
            "trace": trace,
            "llm_prompts": list(stubs.llm_prompts),
        }
        if wr.webhook_callback_url:
            # not part of the comparable trace: only runs with a webhook have it
            out["webhook_failure_reason"] = normalise(wr.webhook_failure_reason)
        if stubs.unstubbed:
            sys.stderr.write(f"real_engine: {name}: no stub for {sorted(set(stubs.unstubbed))}, used the default\n")
        return out


def _reply(resp: Any) -> Any:
    try:
        return resp.json()
    except ValueError:
        return resp.text


def _read_cases(path: str | None) -> list[dict[str, Any]]:
    text = sys.stdin.read() if path in (None, "-") else (ORIGINAL_CWD / path).read_text(encoding="utf-8")
    text = text.strip()
    if not text:
        return []
    if text.startswith("["):
        return json.loads(text)
    try:
        one = json.loads(text)
    except ValueError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return one if isinstance(one, list) else [one]


async def run_cases(cases: list[dict[str, Any]], out: Any) -> int:
    engine = Engine()
    await engine.start()
    sys.stderr.write(f"real_engine: started in {engine.startup_s:.1f}s\n")
    t0 = time.monotonic()
    for case in cases:
        try:
            trace = await asyncio.wait_for(engine.run_case(case), CASE_TIMEOUT_S)
        except asyncio.TimeoutError:
            trace = {"name": case.get("name"), "error": f"timed out after {CASE_TIMEOUT_S:.0f}s"}
        except Exception as exc:  # noqa: BLE001 - one broken case must not lose the others
            import traceback

            traceback.print_exc()
            trace = {"name": case.get("name"), "error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(trace, default=str) + "\n")
        out.flush()
    sys.stderr.write(f"real_engine: {len(cases)} cases in {time.monotonic() - t0:.1f}s after start-up\n")
    return 0


def main(argv: list[str]) -> int:
    out = _private_stdout()
    _quiet()
    sys.path.insert(0, str(HERE))
    if argv and argv[0] == "--serve":
        import serve

        return serve.main(argv[1:], out, Engine, ORIGINAL_CWD)
    cases = _read_cases(argv[0] if argv else None)
    return asyncio.run(run_cases(cases, out))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
