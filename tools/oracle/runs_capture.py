"""Runs INSIDE a release's virtual environment (not wflint's): starts the real service app
in-process on a throwaway SQLite file, saves a few workflows that need no browser and no LLM
(``http_request`` to a loopback receiver, ``terminate``), runs them through the real run
endpoints and records every reply and every webhook the receiver got.

    python runs_capture.py OUT.json

The result is what ``tests/data/runs/real-1.0.56.json`` holds (see ``tests/test_server_runs_real.py``):
the differential reference for the mock's run replies and webhook bodies. Standard library and
the release's own packages only.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TMP = tempfile.mkdtemp(prefix="wflint-runs-capture-")
for name in ("TEMP_PATH", "HAR_PATH", "VIDEO_PATH", "LOG_PATH", "DOWNLOAD_PATH", "ARTIFACT_STORAGE_PATH"):
    os.environ.setdefault(name, os.path.join(TMP, name.lower()))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("SKYVERN_TELEMETRY", "false")
os.environ.setdefault("LOG_LEVEL", "WARNING")
os.environ.setdefault("ANALYTICS_ID", "oracle")

RECEIVED: list[dict] = []


class Receiver(BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):
        body = json.dumps({"price": 7, "path": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        RECEIVED.append({"path": self.path, "at": time.time(), "headers": {k.lower(): v for k, v in self.headers.items()},
                         "body": raw.decode("utf-8")})
        status = 500 if self.path.startswith("/fail") else 200
        text = b"receiver says no" if status == 500 else b"ok"
        self.send_response(status)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)


def _quiet() -> None:
    import logging

    logging.disable(logging.CRITICAL)
    try:
        import structlog

        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.CRITICAL))
    except Exception:  # noqa: BLE001
        pass


def workflows(base: str) -> dict[str, dict]:
    params = [{"parameter_type": "workflow", "key": "need", "workflow_parameter_type": "string"},
              {"parameter_type": "workflow", "key": "n", "workflow_parameter_type": "integer", "default_value": 3}]
    return {
        "ok": {"title": "runs ok", "workflow_definition": {"parameters": params, "blocks": [
            {"block_type": "http_request", "label": "fetch", "method": "GET", "url": base + "/data?n={{ n }}"}]}},
        "fail": {"title": "runs fail", "workflow_definition": {"parameters": params, "blocks": [
            {"block_type": "http_request", "label": "broken", "method": "GET", "url": "http://127.0.0.1:9/nothing"}]}},
        "two": {"title": "runs two", "workflow_definition": {"parameters": params, "blocks": [
            {"block_type": "http_request", "label": "first", "method": "GET", "url": base + "/data?first=1"},
            {"block_type": "http_request", "label": "second", "method": "GET", "url": base + "/data?second={{ need }}"}]}},
        "term": {"title": "runs term", "workflow_definition": {"parameters": params, "blocks": [
            {"block_type": "terminate", "label": "stop", "reason": "n={{ n }} too big", "error_code": "TOO_BIG"}]}},
    }


async def main(out_path: str) -> int:
    _quiet()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    from skyvern.library import embedded_server_factory as factory

    factory._SQLITE_OVERRIDE_VALUES["DATABASE_STRING"] = f"sqlite+aiosqlite:///{TMP}/skyvern.sqlite"
    client = factory.create_embedded_server(use_in_memory_db=True)
    results: dict = {"base": base, "calls": []}

    async def call(name: str, method: str, path: str, **kw) -> object:
        t0 = time.time()
        try:
            r = await client.request(method, path, **kw)
        except Exception as exc:  # noqa: BLE001 - raised after the reply (a background task): recorded
            results["calls"].append({"name": name, "method": method, "path": path, "request": kw.get("json"),
                                     "status": None, "body": f"{type(exc).__name__}: {exc}"})
            return {}
        try:
            body = r.json()
        except ValueError:
            body = r.text
        results["calls"].append({"name": name, "method": method, "path": path, "request": kw.get("json"),
                                 "status": r.status_code, "body": body, "seconds": round(time.time() - t0, 2)})
        return body

    wpids = {}
    for name, wf in workflows(base).items():
        body = await call(f"create_{name}", "POST", "/v1/workflows", json={"json_definition": wf})
        wpids[name] = body["workflow_permanent_id"]
        results["calls"][-1]["body"] = {"workflow_permanent_id": wpids[name]}  # the workflow itself is not compared
    results["api_key"] = client._transport._api_key
    results["wpids"] = wpids

    runs = {}
    for name, hook in (("ok", "/hook_ok"), ("fail", "/hook_fail"), ("term", "/hook_term")):
        body = await call(f"run_{name}", "POST", "/v1/run/workflows",
                          json={"workflow_id": wpids[name], "parameters": {"need": "x"}, "webhook_url": base + hook})
        runs[name] = body["run_id"]
        await call(f"get_{name}", "GET", f"/v1/runs/{runs[name]}")
        await call(f"timeline_{name}", "GET", f"/v1/runs/{runs[name]}/timeline")
        await call(f"legacy_get_{name}", "GET", f"/api/v1/workflows/runs/{runs[name]}")
        await call(f"legacy_get_wpid_{name}", "GET", f"/api/v1/workflows/{wpids[name]}/runs/{runs[name]}")
    await call("cancel_finished", "POST", f"/v1/runs/{runs['ok']}/cancel")
    await call("get_after_cancel", "GET", f"/v1/runs/{runs['ok']}")
    # run refusals
    await call("missing_param", "POST", "/v1/run/agents", json={"agent_id": wpids["ok"], "parameters": {}})
    await call("bad_integer", "POST", "/v1/run/agents",
               json={"agent_id": wpids["ok"], "parameters": {"need": "x", "n": "abc"}})
    await call("unknown_workflow", "POST", "/v1/run/agents", json={"agent_id": "wpid_123", "parameters": {}})
    await call("no_workflow_id", "POST", "/v1/run/agents", json={"parameters": {}})
    await call("get_unknown_run", "GET", "/v1/runs/wr_123")
    await call("timeline_unknown_run", "GET", "/v1/runs/wr_123/timeline")
    await call("cancel_unknown_run", "POST", "/v1/runs/wr_123/cancel")
    await call("legacy_get_unknown", "GET", "/api/v1/workflows/runs/wr_123")
    # the legacy run path and a string that is a number
    await call("legacy_run", "POST", f"/api/v1/workflows/{wpids['ok']}/run",
               json={"data": {"need": "y", "n": "5"}})
    # a webhook the receiver refuses: retries and webhook_failure_reason
    body = await call("run_hook500", "POST", "/v1/run/agents",
                      json={"agent_id": wpids["ok"], "parameters": {"need": "x"}, "webhook_url": base + "/fail500"})
    await call("get_hook500", "GET", f"/v1/runs/{body['run_id']}")
    await call("legacy_get_hook500", "GET", f"/api/v1/workflows/runs/{body['run_id']}")
    body = await call("run_hook_closed", "POST", "/v1/run/agents",
                      json={"agent_id": wpids["ok"], "parameters": {"need": "x"}, "webhook_url": "http://127.0.0.1:9/x"})
    await call("get_hook_closed", "GET", f"/v1/runs/{body['run_id']}")
    await call("legacy_get_hook_closed", "GET", f"/api/v1/workflows/runs/{body['run_id']}")
    body = await call("run_two", "POST", "/v1/run/agents", json={"agent_id": wpids["two"], "parameters": {"need": 5}})
    await call("get_two", "GET", f"/v1/runs/{body['run_id']}")
    await call("timeline_two", "GET", f"/v1/runs/{body['run_id']}/timeline")
    await call("bad_boolean_json", "POST", "/v1/run/agents",
               json={"agent_id": wpids["ok"], "parameters": {"need": {"a": 1}, "n": 2.5}})
    results["webhooks"] = RECEIVED
    with open(out_path, "w", encoding="utf-8") as out:
        json.dump(results, out, indent=1, default=str)
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
