"""Test helpers for the mock's runs: a stand-in for the engine, a webhook receiver that
verifies signatures as Skyvern's documentation shows, and a way to serve the mock with the
stand-in over real HTTP (in a thread, or as a process for the SIGKILL test).

``FakeEngine`` is NOT a simulator: it walks the top-level blocks in order and does what each
block's stub says (``{"output": X}``, ``{"fail": "why"}``, ``{"status": "terminated",
"reason": "..."}``), so the run machinery (statuses, store, webhooks, endpoints) can be tested
apart from the engine, which has its own tests. It honours the engine's contract
(``wflint.server.runs.engine``) and reports each block through ``on_block`` as it starts and ends.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeEngine:
    def __init__(self) -> None:
        self.calls: list[tuple[dict, dict]] = []

    def __call__(self, request, case, *, release="1.0.56", network=True, on_block=None):
        self.calls.append((dict(request), dict(case)))
        trace, outputs, errors = [], {}, []
        status, failure = "completed", None
        for block in request["workflow_definition"]["blocks"]:
            label, kind = block["label"], block["block_type"]
            stub = (case.get("blocks") or {}).get(label, {})
            row = {"label": label, "block_type": kind, "status": "running", "parent": None, "index": None,
                   "value": None, "output": None, "failure_reason": None}
            if on_block:
                on_block(dict(row))
            ended = stub.get("status") or ("failed" if "fail" in stub else "completed")
            output = {"reason": stub.get("reason")} if ended == "terminated" else stub.get("output", {})
            row.update(status=ended, output=output, failure_reason=stub.get("fail") or stub.get("reason"))
            if on_block:
                on_block(dict(row))
            trace.append(row)
            outputs[f"{label}_output"] = output
            if ended == "failed" and not block.get("continue_on_failure"):
                status, failure = "failed", f"{kind} block failed. failure reason: {stub['fail']}"
                break
            if ended == "terminated":
                status, failure = "terminated", f"{kind} block terminated. Reason: {stub.get('reason')}"
                if stub.get("error_code"):
                    errors.append({"error_code": stub["error_code"], "reasoning": stub.get("reason"),
                                   "confidence_float": 1.0})
                break
        return {"name": case.get("name"), "status": status, "failure_reason": failure, "errors": errors,
                "outputs": {**outputs, "extracted_information": []}, "trace": trace, "llm_prompts": []}


# --------------------------------------------------------------------------- webhook receiver


def verify_skyvern_webhook(api_key: str, body: bytes, headers: dict[str, str]) -> bool:
    """What Skyvern's webhook documentation tells receivers to do: HMAC-SHA256 of the raw
    request body with the API key, hex, compared with ``x-skyvern-signature``."""
    expected = hmac.new(api_key.encode("utf-8"), msg=body, digestmod=hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers.get("x-skyvern-signature", ""))


class Receiver:
    """A loopback HTTP server that records every POST; paths starting ``/fail`` answer 500."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status = 500 if self.path.startswith("/fail") else 200
                text = b"receiver says no" if status == 500 else b"ok"
                self.send_response(status)
                self.send_header("Content-Length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)
                with receiver._cond:
                    receiver.received.append({"path": self.path, "at": time.monotonic(), "body": raw,
                                              "headers": {k.lower(): v for k, v in self.headers.items()}})
                    receiver._cond.notify_all()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 20) -> list[dict[str, Any]]:
        with self._cond:
            self._cond.wait_for(lambda: len(self.received) >= count, timeout)
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --------------------------------------------------------------------------- serving over HTTP


class ThreadServer:
    """``wflint serve``'s app under uvicorn in a thread, on a free port: its runs on
    ``FakeEngine``, or with ``fake_engine=False`` on the mock's own executor (wflint's engine)."""

    def __init__(self, keys=("e2e-key=o_e2e",), *, fake_engine: bool = True, **config) -> None:
        import uvicorn

        from wflint.server.http.app import create_app
        from wflint.server.cli import listening_socket
        from wflint.server.testing import make_state

        self.engine = FakeEngine() if fake_engine else None
        self.state = make_state(keys=keys, run_executor=self.engine, **config)
        sock = listening_socket("127.0.0.1", 0)
        self.base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(create_app(state=self.state), log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def serve_process_main(argv: list[str]) -> None:
    """``python tests/run_fakes.py DB PORT``: the mock with ``FakeEngine`` on a file store, as a
    process the SIGKILL test can kill."""
    import uvicorn

    from wflint.server.http.app import create_app
    from wflint.server.cli import listening_socket
    from wflint.server.testing import make_state

    db, port = argv[0], int(argv[1])
    state = make_state(keys=("kill-key=o_kill",), db_path=db, run_executor=FakeEngine())
    sock = listening_socket("127.0.0.1", port)
    print(json.dumps({"port": sock.getsockname()[1], "resumed": state.runs.unfinished()}), flush=True)
    uvicorn.Server(uvicorn.Config(create_app(state=state), log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    serve_process_main(sys.argv[1:])
