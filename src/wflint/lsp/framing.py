"""The language server's base protocol on stdin/stdout: framing that cannot wedge.

pygls's reader takes only ``Content-Length: N`` spelled exactly so, and a frame it cannot read
leaves it waiting for ever (a lower-case ``content-length:``, which the protocol allows, was
enough). This loop replaces it:

* header names in any case; ``Content-Type`` and unknown headers are ignored;
* a frame it cannot read (a header line that is not ``name: value`` or is too long, no or a
  bad length, a body longer than ``MAX_BODY_BYTES``, the input ending mid-frame) ends the
  server with a message on standard error and exit status 1, so the editor restarts it
  (resynchronising on a byte stream that lost its framing would only guess);
* a body that is not JSON is answered ``ParseError``; a request whose params cannot be read
  (a position of -1 or 2^31) ``InvalidParams``; a request after ``shutdown`` ``InvalidRequest``:
  every request gets an answer;
* a document the server does not check (not YAML or JSON) is never handed to pygls, so its
  edits cost nothing (pygls would apply every edit to a copy of the whole text).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import threading
from typing import Any, BinaryIO

from pygls.io_ import StdoutWriter

from .documents import is_workflow_path

logger = logging.getLogger(__name__)

#: bytes of one header line, and of one message body
MAX_HEADER_LINE = 8192
MAX_BODY_BYTES = 256 * 1024 * 1024
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
CHECKED_LANGUAGES = ("yaml", "json", "jsonc")


class FramingError(Exception):
    """The input can no longer be split into messages."""


def read_frame(stream: Any) -> bytes | None:
    """One message body; None at a clean end of input (between frames)."""
    length: int | None = None
    first = True
    while True:
        line = stream.readline(MAX_HEADER_LINE)
        if not line:
            if first:
                return None
            raise FramingError("the input ended inside a message's headers")
        first = False
        if not line.endswith(b"\n"):
            raise FramingError(f"a header line longer than {MAX_HEADER_LINE} bytes" if len(line) >= MAX_HEADER_LINE
                               else "the input ended inside a message's headers")
        text = line.rstrip(b"\r\n")
        if not text:
            break
        name, sep, value = text.partition(b":")
        if not sep:
            raise FramingError(f"a header line that is not 'name: value': {text[:80]!r}")
        if name.strip().lower() == b"content-length":
            value = value.strip()
            if not value.isdigit():
                raise FramingError(f"Content-Length is not a number: {value[:40]!r}")
            if length is not None and int(value) != length:
                raise FramingError("two different Content-Length headers")
            length = int(value)
    if length is None:
        raise FramingError("a message without a Content-Length header")
    if length > MAX_BODY_BYTES:
        raise FramingError(f"a message of {length} bytes (at most {MAX_BODY_BYTES})")
    body = stream.read(length) if length else b""
    if len(body) < length:
        raise FramingError("the input ended inside a message's body")
    return body


class FdReader:
    """``readline`` and ``read`` over a file descriptor with ``os.read``: no buffered file's
    lock, which a daemon thread blocked in a read would hold while the interpreter exits
    (a fatal error at shutdown)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        chunk = os.read(self.fd, 65536)
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True

    def readline(self, limit: int) -> bytes:
        while True:
            end = self.buffer.find(b"\n", 0, limit)
            if end >= 0:
                return self._take(end + 1)
            if len(self.buffer) >= limit or not self._fill():
                return self._take(min(limit, len(self.buffer)))

    def read(self, n: int) -> bytes:
        while len(self.buffer) < n and self._fill():
            pass
        return self._take(min(n, len(self.buffer)))

    def _take(self, n: int) -> bytes:
        out = bytes(self.buffer[:n])
        del self.buffer[:n]
        return out


def frame(payload: dict[str, Any]) -> bytes:
    body = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Dispatcher:
    """Hands readable messages to pygls, answers the others itself."""

    def __init__(self, server: Any, writer: StdoutWriter) -> None:
        self.server = server
        self.protocol = server.protocol
        self.writer = writer
        #: documents opened that the server does not check: their notifications are dropped
        self.unchecked: set[str] = set()

    def error(self, msg_id: Any, code: int, message: str) -> None:
        self.writer.write(frame({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}))

    def handle(self, body: bytes) -> None:
        try:
            message = json.loads(body, object_hook=self.protocol.structure_message)
        except (ValueError, RecursionError) as exc:  # not JSON (UnicodeDecodeError is a ValueError)
            if not self._unreadable_params(body, exc):
                self.error(None, PARSE_ERROR, f"wflint: the message is not JSON: {exc}")
            return
        except Exception as exc:  # noqa: BLE001 - lsprotocol refused the params' shape
            if not self._unreadable_params(body, exc):
                logger.warning("dropped an unreadable notification: %s", exc)
            return
        method = getattr(message, "method", None)
        msg_id = getattr(message, "id", None)
        if self.protocol._shutdown and method is not None and method != "exit" and msg_id is not None:
            self.error(msg_id, INVALID_REQUEST, f"wflint: {method} after shutdown (only exit is accepted now)")
            return
        if self._unchecked_document(method, getattr(message, "params", None)):
            return
        self.protocol.handle_message(message)

    def _unreadable_params(self, body: bytes, exc: Exception) -> bool:
        """Answers InvalidParams when ``body`` is JSON naming a request; False otherwise."""
        try:
            plain = json.loads(body)
        except (ValueError, RecursionError):
            return False
        if not isinstance(plain, dict) or "id" not in plain or not isinstance(plain.get("method"), str):
            return False
        if self.protocol._shutdown and plain["method"] != "exit":
            self.error(plain["id"], INVALID_REQUEST, f"wflint: {plain['method']} after shutdown")
        else:
            self.error(plain["id"], INVALID_PARAMS, f"wflint: cannot read the params of {plain['method']}: "
                                                    f"{str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__}")
        return True

    def _unchecked_document(self, method: str | None, params: Any) -> bool:
        if method is None or not method.startswith("textDocument/did") or params is None:
            return False
        doc = getattr(params, "text_document", None)
        uri = getattr(doc, "uri", None)
        if uri is None:
            return False
        if method == "textDocument/didOpen":
            from pygls.uris import to_fs_path

            path = to_fs_path(uri) or uri
            if is_workflow_path(path) or doc.language_id in CHECKED_LANGUAGES:
                return False
            self.unchecked.add(uri)
            return True
        if method == "textDocument/didClose":
            if uri in self.unchecked:
                self.unchecked.discard(uri)
                return True
            return False
        return uri in self.unchecked


async def serve(server: Any, stdin: Any, writer: StdoutWriter, stop: threading.Event) -> None:
    """Frames are read on a daemon thread (a read blocked on stdin never holds up the exit)
    and handled here, on the event loop, in order."""
    loop = asyncio.get_running_loop()
    dispatcher = Dispatcher(server, writer)
    frames: asyncio.Queue = asyncio.Queue()

    def reader() -> None:
        while True:
            try:
                body = read_frame(stdin)
            except (FramingError, OSError, ValueError) as exc:
                loop.call_soon_threadsafe(frames.put_nowait, exc)
                return
            try:
                loop.call_soon_threadsafe(frames.put_nowait, body)
            except RuntimeError:  # the loop has closed
                return
            if body is None:
                return

    threading.Thread(target=reader, daemon=True, name="wflint-lsp-reader").start()
    while not stop.is_set():
        item = await frames.get()
        if item is None:
            return
        if isinstance(item, FramingError):
            raise item
        if isinstance(item, Exception):
            raise FramingError(f"the input cannot be read: {item}")
        try:
            dispatcher.handle(item)
        except Exception:  # noqa: BLE001 - one message never takes the server down
            logger.exception("wflint: a message could not be handled")


def serve_stdio(server: Any, stdin: Any = None, stdout: BinaryIO | None = None) -> None:
    """Serve ``server`` (a pygls LanguageServer) over stdin/stdout until ``exit`` or the end of
    input; a framing error ends the process with status 1 and a message on standard error."""
    stop = threading.Event()
    server._stop_event = stop  # what pygls's own loop would have set up (exit sets it)
    writer = StdoutWriter(stdout or sys.stdout.buffer)
    server.protocol.set_writer(writer)
    status = 0
    try:
        asyncio.run(serve(server, stdin or FdReader(sys.stdin.fileno()), writer, stop))
    except FramingError as exc:
        sys.stderr.write(f"wflint lsp: cannot read the client's messages any more ({exc}); exiting so the "
                         "editor can restart the server\n")
        status = 1
    except BrokenPipeError:
        status = 1
    except (KeyboardInterrupt, SystemExit) as exc:
        status = exc.code if isinstance(exc, SystemExit) and isinstance(exc.code, int) else 0
    finally:
        try:
            server.shutdown()
        except Exception:  # noqa: BLE001
            pass
    if status:
        sys.exit(status)
