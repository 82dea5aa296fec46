"""A small Language Server Protocol client over stdio, enough to drive a real language server
from a test: requests, notifications, answers to the server's own requests, and the diagnostics
it publishes."""

from __future__ import annotations

import json
import subprocess
import threading
from typing import Any, Callable


class LspError(Exception):
    pass


class LspClient:
    def __init__(self, argv: list[str], *, settings: dict[str, Any], cwd: str | None = None) -> None:
        self.settings = settings
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
        self._next_id = 0
        self._write_lock = threading.Lock()
        self._cond = threading.Condition()
        self._responses: dict[int, dict[str, Any]] = {}
        self.diagnostics: dict[str, list[dict[str, Any]]] = {}
        self._versions: dict[str, int] = {}
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # ----------------------------------------------------------------------- wire format

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        with self._write_lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            self.proc.stdin.flush()

    def _read_message(self) -> dict[str, Any] | None:
        stream = self.proc.stdout
        assert stream is not None
        length = None
        while True:
            line = stream.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        if length is None:
            raise LspError("a message without Content-Length")
        return json.loads(stream.read(length))

    def _read_loop(self) -> None:
        while True:
            try:
                msg = self._read_message()
            except (ValueError, OSError, LspError):
                msg = None
            if msg is None:
                with self._cond:
                    self._cond.notify_all()
                return
            if "id" in msg and "method" in msg:  # the server asks something
                self._send({"id": msg["id"], "result": self._answer(msg["method"], msg.get("params"))})
            elif "id" in msg:
                with self._cond:
                    self._responses[msg["id"]] = msg
                    self._cond.notify_all()
            elif msg.get("method") == "textDocument/publishDiagnostics":
                with self._cond:
                    self.diagnostics[msg["params"]["uri"]] = msg["params"]["diagnostics"]
                    self._cond.notify_all()

    def _answer(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            return [self.settings.get(item.get("section", ""), None) for item in params["items"]]
        return None  # registerCapability, workDoneProgress/create, ...

    # ----------------------------------------------------------------------------- calls

    def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        self._next_id += 1
        rid = self._next_id
        self._send({"id": rid, "method": method, "params": params})
        with self._cond:
            if not self._cond.wait_for(lambda: rid in self._responses or self.proc.poll() is not None, timeout):
                raise LspError(f"no answer to {method} within {timeout} s")
            if rid not in self._responses:
                raise LspError(f"the server exited while answering {method}")
            reply = self._responses.pop(rid)
        if "error" in reply:
            raise LspError(f"{method}: {reply['error']}")
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"method": method, "params": params})

    def open(self, uri: str, text: str, language: str = "yaml") -> None:
        """Open (or reopen with new text) a document; its earlier diagnostics are forgotten."""
        with self._cond:
            self.diagnostics.pop(uri, None)
        if uri in self._versions:
            self._versions[uri] += 1
            self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": self._versions[uri]}, "contentChanges": [{"text": text}]})
        else:
            self._versions[uri] = 1
            self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}})

    def wait_for_diagnostics(self, uri: str, timeout: float = 30) -> list[dict[str, Any]]:
        with self._cond:
            if not self._cond.wait_for(lambda: uri in self.diagnostics or self.proc.poll() is not None, timeout):
                raise LspError(f"no diagnostics for {uri} within {timeout} s")
            if uri not in self.diagnostics:
                raise LspError("the server exited")
            return self.diagnostics[uri]

    def wait_until(self, predicate: Callable[[], bool], timeout: float = 30) -> bool:
        with self._cond:
            return self._cond.wait_for(predicate, timeout)

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=10)
            self.notify("exit", None)
            self.proc.wait(timeout=10)
        except (LspError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(timeout=10)
