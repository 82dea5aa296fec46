"""A loopback HTTP server for ``http_request`` blocks and webhooks run by the real engine.

Runs in a thread of the engine process on 127.0.0.1 (a free port). Every request is recorded;
the answer is JSON ``{"method", "path", "json" | "text"}`` echoing what arrived, with status 200,
except under ``/status/<code>``, which answers that status with ``{"error": "boom"}``.
Case files write ``$ECHO_URL`` where they mean this server's base URL (``http://127.0.0.1:PORT``).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RECEIVED: list[dict[str, Any]] = []


class _Echo(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        text = raw.decode("utf-8", "replace")
        try:
            payload: dict[str, Any] = {"json": json.loads(text)} if text else {}
        except ValueError:
            payload = {"text": text}
        record = {"method": self.command, "path": self.path, **payload}
        RECEIVED.append({**record, "headers": {k.lower(): v for k, v in self.headers.items()}, "raw": text})
        status, body = 200, record
        parts = self.path.strip("/").split("/")
        if len(parts) >= 2 and parts[0] == "status" and parts[1].isdigit():
            status, body = int(parts[1]), {"error": "boom"}
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

    def log_message(self, *args: Any) -> None:  # quiet
        return None


def start() -> str:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    threading.Thread(target=server.serve_forever, daemon=True, name="wflint-loopback").start()
    return f"http://127.0.0.1:{server.server_address[1]}"


def substitute(value: Any, base_url: str) -> Any:
    """``$ECHO_URL`` replaced by the server's base URL, anywhere in a JSON-like value."""
    if isinstance(value, str):
        return value.replace("$ECHO_URL", base_url)
    if isinstance(value, list):
        return [substitute(v, base_url) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, base_url) for k, v in value.items()}
    return value
