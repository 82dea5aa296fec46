"""The opening of an editor's session (issue 21): ``initialize`` answered and the first
document's diagnostics published before pygls and lsprotocol are imported, and the server
taking over from there as if it had read every frame itself.

The opening's answers are held to pygls's own: the ``initialize`` answer for real editors'
capabilities (pytest-lsp's recorded clients) and generated ones, and the diagnostics' JSON for
every fixture."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("pygls")

from wflint import __version__  # noqa: E402
from wflint.project.config import Config  # noqa: E402
from wflint.lsp.capabilities import initialize_result  # noqa: E402
from wflint.lsp.diagnostics import findings, to_lsp, to_wire  # noqa: E402
from wflint.lsp.documents import Document  # noqa: E402
from wflint.lsp.opening import open_session, readable_initialize  # noqa: E402
from wflint.lsp.wire import FdReader, frame  # noqa: E402

from test_hostile_lsp import Raw  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".yaml", ".yml", ".json"))
FLOW = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a, wait_sec: 1}\n    - {block_type: wait, label: a, wait_sec: 1}\n"


def _recorded_clients() -> list[Path]:
    import pytest_lsp

    return sorted((Path(pytest_lsp.__file__).parent / "clients").glob("*.json"))


class Sink:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data

    def flush(self) -> None:
        pass

    def messages(self) -> list[dict]:
        out, rest = [], self.data
        while rest:
            header, _, rest = rest.partition(b"\r\n\r\n")
            length = int(header.split(b":")[1].split(b"\r\n")[0])
            out.append(json.loads(rest[:length]))
            rest = rest[length:]
        return out


def pygls_initialize_answer(params: dict) -> dict:
    """What pygls, serving wflint, answers to ``initialize`` with ``params``."""
    from wflint.lsp.framing import Dispatcher
    from wflint.lsp.server import build

    async def ask() -> dict:
        server, sink = build(), Sink()
        server.protocol.set_writer(sink)
        Dispatcher(server, sink).handle(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                                    "params": params}).encode())
        for _ in range(200):
            answers = [m for m in sink.messages() if m.get("id") == 1]
            if answers:
                return answers[0]
            await asyncio.sleep(0.01)
        raise AssertionError("pygls did not answer initialize")

    return asyncio.run(ask())


@pytest.mark.parametrize("recorded", _recorded_clients(), ids=lambda p: p.stem)
def test_the_initialize_answer_is_pygls_s_for_real_editors(recorded):
    params = json.loads(recorded.read_text())
    assert pygls_initialize_answer(params) == {"jsonrpc": "2.0", "id": 1,
                                               "result": initialize_result(params["capabilities"], __version__)}


_FLAG = st.sampled_from([None, True, False])


@st.composite
def capabilities(draw) -> dict:
    caps: dict = {}
    encodings = draw(st.none() | st.lists(st.sampled_from(["utf-8", "utf-16", "utf-32", "utf-7", "ascii"]), max_size=3))
    if encodings is not None:
        caps["general"] = {"positionEncodings": encodings}
    sync = {k: v for k in ("willSave", "willSaveWaitUntil", "didSave") if (v := draw(_FLAG)) is not None}
    rename = {k: v for k in ("prepareSupport", "dynamicRegistration") if (v := draw(_FLAG)) is not None}
    text_document = {name: part for name, part in (("synchronization", sync), ("rename", rename)) if draw(st.booleans())}
    if draw(st.booleans()):
        text_document["hover"] = {"contentFormat": ["markdown"]}
    if text_document or draw(st.booleans()):
        caps["textDocument"] = text_document
    if draw(st.booleans()):
        caps["workspace"] = {"fileOperations": {k: v for k in ("didCreate", "willRename") if (v := draw(_FLAG)) is not None},
                             "didChangeWatchedFiles": {"dynamicRegistration": draw(st.booleans())}}
    if draw(st.booleans()):
        caps["notebookDocument"] = {"synchronization": {"dynamicRegistration": True}}
    return caps


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(capabilities())
def test_the_initialize_answer_is_pygls_s_for_generated_clients(caps):
    params = {"processId": None, "rootUri": None, "capabilities": caps}
    assert pygls_initialize_answer(params)["result"] == initialize_result(caps, __version__)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_the_opening_publishes_what_pygls_would_write(encoding):
    from pygls.protocol import default_converter

    converter = default_converter()
    compared = 0
    for path in FIXTURES:
        text = path.read_text(encoding="utf-8", errors="replace")
        doc = Document(path.as_uri(), str(path), text, 1, encoding)
        found = findings(doc, Config())
        assert to_wire(doc, found) == converter.unstructure(to_lsp(doc, found)), path
        compared += bool(found)
    assert compared > 100


def _frames(*messages: dict) -> bytes:
    return b"".join(frame({"jsonrpc": "2.0", **m}) for m in messages)


def _opening_input(uri: str, text: str, capabilities: dict | None = None) -> bytes:
    return _frames({"id": 1, "method": "initialize", "params": {"processId": None, "rootUri": None,
                                                               "capabilities": capabilities or {}}},
                   {"method": "initialized", "params": {}},
                   {"method": "textDocument/didOpen", "params": {"textDocument": {
                       "uri": uri, "languageId": "yaml", "version": 1, "text": text}}})


def test_the_opening_imports_neither_pygls_s_server_nor_lsprotocol(tmp_path):
    flow = tmp_path / "flow.yaml"
    flow.write_text(FLOW)
    script = textwrap.dedent(f"""
        import io, json, os, sys
        from wflint.lsp.opening import open_session
        from wflint.lsp.wire import FdReader
        r, w = os.pipe()
        os.write(w, {_opening_input(flow.as_uri(), FLOW)!r})
        os.close(w)
        out = io.BytesIO()
        opening = open_session(FdReader(r), out)
        print(json.dumps({{"published": opening.opened is not None,
                          "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("lsprotocol", "cattrs")
                                           or m.startswith("pygls.lsp") or m.startswith("pygls.protocol"))}}))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"published": True, "loaded": []}


def test_the_server_takes_over_without_checking_the_first_document_again(tmp_path):
    from wflint.lsp.framing import serve_stdio
    from wflint.lsp.server import build

    flow = tmp_path / "flow.yaml"
    flow.write_text(FLOW)
    uri = flow.as_uri()
    read, write = os.pipe()
    os.write(write, _opening_input(uri, FLOW, {"general": {"positionEncodings": ["utf-8"]}}))
    reader, out = FdReader(read), Sink()
    opening = open_session(reader, out)
    assert opening.opened is not None and [d.code for d in opening.opened.findings] == ["WF201"]
    first = out.messages()
    assert [m.get("method") for m in first] == [None, "textDocument/publishDiagnostics"]
    assert first[0]["result"]["capabilities"]["positionEncoding"] == "utf-8"
    assert [d["code"] for d in first[1]["params"]["diagnostics"]] == ["WF201"]
    assert first[1]["params"]["diagnostics"][0]["relatedInformation"]  # the first block named "a"

    server, rest = build(), Sink()
    server.take_over(opening)
    serving = threading.Thread(target=serve_stdio, args=(server, reader, rest), kwargs={"opening": opening})
    serving.start()
    os.write(write, _frames({"id": 2, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": uri}}}))
    for _ in range(3000):  # at most 30 s
        if any(m.get("id") == 2 for m in rest.messages()):
            break
        time.sleep(0.01)
    os.close(write)
    serving.join(30)
    later = rest.messages()
    assert not [m for m in later if m.get("id") == 1], "the server answered initialize a second time"
    (symbols,) = [m for m in later if m.get("id") == 2]
    assert [s["name"] for s in symbols["result"]] == ["a", "a"]
    assert server.workspace.position_encoding == "utf-8"
    document, found = server.checked[uri]
    assert document is opening.opened.document and found is opening.opened.findings
    assert [d.code for d in server.published[uri]] == ["WF201"]


def test_a_client_whose_capabilities_pygls_cannot_read_is_still_served(tmp_path):
    """The opening told the client its ``initialize`` was read; when lsprotocol then refuses a
    capability the server never reads, the server is initialised with those it reads."""
    flow = tmp_path / "flow.yaml"
    flow.write_text(FLOW)
    odd = {"textDocument": {"hover": 5, "rename": {"prepareSupport": True}}, "general": {"positionEncodings": ["utf-32"]}}
    params = {"processId": None, "rootUri": None, "capabilities": odd}
    assert "error" in pygls_initialize_answer(params)  # pygls alone refuses it
    assert readable_initialize(params)["capabilities"] == {"general": {"positionEncodings": ["utf-32"]},
                                                           "textDocument": {"rename": {"prepareSupport": True}}}
    raw = Raw()
    try:
        uri = flow.as_uri()
        raw.send_bytes(_opening_input(uri, FLOW, odd))
        answer = raw.answer(1)["result"]["capabilities"]
        assert answer["positionEncoding"] == "utf-32" and answer["renameProvider"] == {"prepareProvider": True}
        published = raw.messages.get(timeout=30)
        assert published["method"] == "textDocument/publishDiagnostics"
        assert [d["code"] for d in published["params"]["diagnostics"]] == ["WF201"]
        column = FLOW.splitlines()[4].index("a,")
        raw.send({"id": 2, "method": "textDocument/hover", "params": {"textDocument": {"uri": uri},
                                                                      "position": {"line": 4, "character": column}}})
        assert "block" in json.dumps(raw.answer(2)["result"])  # served: the label's hover
        raw.send({"id": 3, "method": "shutdown"})
        assert "result" in raw.answer(3)
        raw.send({"method": "exit"})
        assert raw.proc.wait(30) == 0
        assert b"differs" not in raw.proc.stderr.read()
    finally:
        raw.close()


def test_notifications_before_the_first_document_are_kept_for_the_server(tmp_path):
    flow = tmp_path / "flow.yaml"
    flow.write_text(FLOW)
    settings = {"method": "workspace/didChangeConfiguration", "params": {"settings": {"wflint": {}}}}
    read, write = os.pipe()
    opening_input = _opening_input(flow.as_uri(), FLOW)
    initialize_end = opening_input.index(b"Content-Length", 1)
    os.write(write, opening_input[:initialize_end] + _frames(settings) + opening_input[initialize_end:])
    os.close(write)
    out = Sink()
    opening = open_session(FdReader(read), out)
    assert opening.opened is not None and [m.get("method") for m in out.messages()] == [
        None, "textDocument/publishDiagnostics"]
    assert [json.loads(f)["method"] for f in opening.frames] == [
        "initialize", "workspace/didChangeConfiguration", "initialized", "textDocument/didOpen"]


def test_a_failure_in_the_opening_leaves_the_session_to_the_server(tmp_path, monkeypatch):
    import wflint.lsp.opening as opening_module

    def broken(*_args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(opening_module, "is_checked", broken)
    read, write = os.pipe()
    os.write(write, _opening_input((tmp_path / "flow.yaml").as_uri(), FLOW))
    os.close(write)
    out = Sink()
    opening = open_session(FdReader(read), out)
    assert [m.get("id") for m in out.messages()] == [1]  # initialize answered, nothing published
    assert opening.initialize_id == 1 and opening.opened is None and len(opening.frames) == 3


def test_the_opening_leaves_anything_else_to_the_server():
    read, write = os.pipe()
    os.write(write, _frames({"id": 7, "method": "shutdown"}))
    os.close(write)
    out = io.BytesIO()
    opening = open_session(FdReader(read), out)
    assert out.getvalue() == b"" and opening.initialize_id is None
    assert len(opening.frames) == 1 and isinstance(opening.frames[0], bytes)

    read, write = os.pipe()
    os.write(write, _frames({"id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
                            {"method": "exit"}, {"method": "textDocument/didOpen", "params": {}}))
    os.close(write)
    opening = open_session(FdReader(read), out := Sink())
    assert [m.get("id") for m in out.messages()] == [1] and len(opening.frames) == 2 and opening.opened is None

    read, write = os.pipe()
    os.write(write, _frames({"id": 1, "method": "initialize", "params": {"processId": "me", "capabilities": {}}}))
    os.close(write)
    out = io.BytesIO()
    opening = open_session(FdReader(read), out)
    assert out.getvalue() == b"" and opening.initialize_id is None  # pygls answers what it cannot read


def test_the_server_output_drops_the_second_initialize_answer_and_writes_after_exit(capsys):
    from wflint.lsp.framing import ServerOutput

    class Stream:
        def __init__(self) -> None:
            self.written: list[bytes] = []
            self.closed = False

        def write(self, data: bytes) -> None:
            if self.closed:
                raise ValueError("I/O operation on closed file")
            self.written.append(data)

        def close(self) -> None:
            self.closed = True

    answer = initialize_result({}, __version__)
    stream = Stream()
    out = ServerOutput(stream, (1, answer))
    published = frame({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": {}})
    out.write(published)
    out.write(frame({"jsonrpc": "2.0", "id": 1, "result": answer}))  # pygls's own: dropped, the same
    out.write(frame({"jsonrpc": "2.0", "id": 1, "result": answer}))  # a later id 1 is not the answer
    assert stream.written == [published, frame({"jsonrpc": "2.0", "id": 1, "result": answer})]
    assert capsys.readouterr().err == ""

    other = ServerOutput(Stream(), (7, answer))
    other.write(frame({"jsonrpc": "2.0", "id": 7, "result": {"capabilities": {}}}))
    assert "differs" in capsys.readouterr().err and other.writer.written == []
    other.close()
    other.write(published)  # a cancellation answered as the server stops: dropped, not raised
    assert other.writer.written == []
