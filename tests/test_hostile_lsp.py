"""The language server on hostile input (issue 23): header names in any case, a framing error
ends it with a message (so the editor restarts it), every request is answered, and documents
it does not check cost nothing. Bounded: each wait is at most 30 s, and a hang fails."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

import pytest

pytest.importorskip("pygls")

SRC = Path(__file__).resolve().parents[1] / "src"
INIT = {"processId": None, "rootUri": None, "capabilities": {}}
FLOW = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a, wait_sec: 1}\n"


class Raw:
    """A language server driven byte by byte."""

    def __init__(self) -> None:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen([sys.executable, "-m", "wflint", "lsp"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.messages: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if not line.strip():
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(stream.read(length)))

    def send_bytes(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, payload: dict, header: bytes = b"Content-Length") -> None:
        body = json.dumps({"jsonrpc": "2.0", **payload}).encode()
        self.send_bytes(header + b": %d\r\n\r\n" % len(body) + body)

    def answer(self, msg_id, timeout: float = 30) -> dict:
        while True:
            msg = self.messages.get(timeout=timeout)
            assert msg is not None, "the server closed its output"
            if msg.get("id") == msg_id and "method" not in msg:
                return msg

    def initialize(self) -> None:
        self.send({"id": 1, "method": "initialize", "params": INIT})
        assert "result" in self.answer(1)
        self.send({"method": "initialized", "params": {}})

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)


@pytest.fixture
def raw():
    server = Raw()
    yield server
    server.close()


def test_header_names_are_read_in_any_case(raw):
    raw.send({"id": 1, "method": "initialize", "params": INIT}, header=b"content-length")
    assert "result" in raw.answer(1)
    raw.send({"id": 2, "method": "shutdown"}, header=b"CONTENT-LENGTH")
    assert raw.answer(2)["result"] is None


@pytest.mark.parametrize("garbage", [b"Content-Length: abc\r\n\r\n{}", b"no colon here\r\n\r\n",
                                     b"Content-Type: x\r\n\r\n{}", b"Content-Length: 50\r\n\r\n{\"jsonrpc\""])
def test_a_framing_error_ends_the_server_with_a_message(raw, garbage):
    raw.initialize()
    raw.send_bytes(garbage)
    raw.proc.stdin.close()  # the last case: the input ends inside the body
    assert raw.proc.wait(30) == 1
    assert b"cannot read the client's messages" in raw.proc.stderr.read()


def test_a_body_that_is_not_json_is_a_parse_error_and_the_server_goes_on(raw):
    raw.initialize()
    raw.send_bytes(b"Content-Length: 5\r\n\r\n{nope")
    error = raw.answer(None)["error"]
    assert error["code"] == -32700
    raw.send({"id": 7, "method": "shutdown"})
    assert raw.answer(7)["result"] is None


@pytest.mark.parametrize("line", [-1, 2**31, 2**40])
def test_a_position_it_cannot_read_is_invalid_params(raw, tmp_path, line):
    raw.initialize()
    uri = (tmp_path / "flow.yaml").as_uri()
    raw.send({"method": "textDocument/didOpen",
              "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": FLOW}}})
    raw.send({"id": 3, "method": "textDocument/hover",
              "params": {"textDocument": {"uri": uri}, "position": {"line": line, "character": 0}}})
    assert raw.answer(3)["error"]["code"] == -32602


def test_requests_after_shutdown_are_invalid_request_and_exit_still_exits(raw):
    raw.initialize()
    raw.send({"id": 2, "method": "shutdown"})
    raw.answer(2)
    raw.send({"id": 3, "method": "textDocument/hover",
              "params": {"textDocument": {"uri": "file:///x.yaml"}, "position": {"line": 0, "character": 0}}})
    assert raw.answer(3)["error"]["code"] == -32600
    raw.send({"method": "exit"})
    assert raw.proc.wait(30) == 0


def test_documents_it_does_not_check_never_reach_the_workspace():
    from wflint.lsp.framing import Dispatcher
    from wflint.lsp.server import build

    class Sink:
        def __init__(self):
            self.data = b""

        def write(self, data):
            self.data += data

    import asyncio

    asyncio.run(_unchecked_documents(build(), Dispatcher, Sink()))


async def _unchecked_documents(server, Dispatcher, sink):
    server.protocol.set_writer(sink)
    dispatcher = Dispatcher(server, sink)
    big = "x" * 1_000_000

    def notify(method, params):
        dispatcher.handle(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}).encode())

    dispatcher.handle(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}).encode())
    for _ in range(100):
        if b'"id":1' in sink.data.replace(b" ", b""):
            break
        await asyncio.sleep(0.02)

    notify("textDocument/didOpen", {"textDocument": {"uri": "file:///notes.txt", "languageId": "plaintext",
                                                     "version": 1, "text": big}})
    for v in range(2, 50):
        notify("textDocument/didChange", {"textDocument": {"uri": "file:///notes.txt", "version": v},
                                          "contentChanges": [{"range": {"start": {"line": 0, "character": 0},
                                                                        "end": {"line": 0, "character": 0}},
                                                              "text": "y"}]})
    assert "file:///notes.txt" not in server.workspace.text_documents
    assert dispatcher.unchecked == {"file:///notes.txt"}
    notify("textDocument/didClose", {"textDocument": {"uri": "file:///notes.txt"}})
    assert dispatcher.unchecked == set()
    notify("textDocument/didOpen", {"textDocument": {"uri": "file:///flow.yaml", "languageId": "yaml",
                                                     "version": 1, "text": FLOW}})
    assert "file:///flow.yaml" in server.workspace.text_documents
