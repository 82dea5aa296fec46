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
import sys
import threading
from typing import Any, BinaryIO

from pygls.io_ import StdoutWriter

from .documents import is_checked
from .wire import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, FdReader, FramingError, frame, read_frame

logger = logging.getLogger(__name__)

class Dispatcher:
    """Hands readable messages to pygls, answers the others itself."""

    def __init__(self, server: Any, writer: Any, initialize_read: bytes | None = None) -> None:
        self.server = server
        self.protocol = server.protocol
        self.writer = writer
        #: documents opened that the server does not check: their notifications are dropped
        self.unchecked: set[str] = set()
        #: what the first message is read as when lsprotocol cannot read it: the ``initialize``
        #: the opening answered, limited to the capabilities it read (``opening.readable_initialize``)
        self.initialize_read = initialize_read

    def error(self, msg_id: Any, code: int, message: str) -> None:
        self.writer.write(frame({"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}))

    def handle(self, body: bytes) -> None:
        initialize_read, self.initialize_read = self.initialize_read, None
        try:
            message = json.loads(body, object_hook=self.protocol.structure_message)
        except (ValueError, RecursionError) as exc:  # not JSON (UnicodeDecodeError is a ValueError)
            if not self._unreadable_params(body, exc):
                self.error(None, PARSE_ERROR, f"wflint: the message is not JSON: {exc}")
            return
        except Exception as exc:  # noqa: BLE001 - lsprotocol refused the params' shape
            if initialize_read is not None:  # the client was told it was read: hold to that
                self.handle(initialize_read)
                return
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
            if is_checked(path, doc.language_id):
                return False
            self.unchecked.add(uri)
            return True
        if method == "textDocument/didClose":
            if uri in self.unchecked:
                self.unchecked.discard(uri)
                return True
            return False
        return uri in self.unchecked


class ServerOutput:
    """The server's writer on standard output.

    * When the opening answered ``initialize`` (``answered``: its id and result), the server's
      own answer to it is dropped, after a comparison: standard error says so if they differ.
    * Once ``exit`` has closed the output, writes are dropped: a request still pending then
      (its cancellation is answered as the server stops) would only fill standard error with
      "I/O operation on closed file".
    """

    def __init__(self, writer: Any, answered: tuple[Any, dict[str, Any]] | None = None) -> None:
        self.writer = writer
        self.answered = answered
        self.closed = False

    def write(self, data: bytes) -> None:
        if self.closed:
            return
        if self.answered is not None:
            msg_id, answer = self.answered
            message = json.loads(data.partition(b"\r\n\r\n")[2])
            if message.get("id") == msg_id and "method" not in message:
                if message.get("result") != answer:
                    sys.stderr.write("wflint lsp: the answer to initialize given before the server started differs "
                                     f"from the server's: {json.dumps(answer)} against {json.dumps(message)}\n")
                self.answered = None
                return
        self.writer.write(data)

    def close(self) -> None:
        self.closed = True
        self.writer.close()


async def serve(server: Any, stdin: Any, writer: Any, stop: threading.Event, opening: Any = None) -> None:
    """Frames are read on a daemon thread (a read blocked on stdin never holds up the exit)
    and handled here, on the event loop, in order: first those the opening read (``opening``),
    then the rest."""
    loop = asyncio.get_running_loop()
    initialize_read = None
    if opening is not None and opening.initialize_read is not None:
        initialize_read = json.dumps({"jsonrpc": "2.0", "id": opening.initialize_id, "method": "initialize",
                                      "params": opening.initialize_read}).encode()
    dispatcher = Dispatcher(server, writer, initialize_read)
    frames: asyncio.Queue = asyncio.Queue()
    replayed = opening.frames if opening is not None else []
    for item in replayed:
        frames.put_nowait(item)

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

    if not replayed or isinstance(replayed[-1], bytes):  # else the input ended, or broke, in the opening
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


def serve_stdio(server: Any, stdin: Any = None, stdout: BinaryIO | None = None, opening: Any = None) -> None:
    """Serve ``server`` (a pygls LanguageServer) over stdin/stdout until ``exit`` or the end of
    input, taking over from ``opening`` (``opening.Opening``: what was read and answered before
    pygls was imported) when given; a framing error ends the process with status 1 and a
    message on standard error."""
    stop = threading.Event()
    server._stop_event = stop  # what pygls's own loop would have set up (exit sets it)
    answered = None
    if opening is not None and opening.initialize_answer is not None:
        answered = (opening.initialize_id, opening.initialize_answer)
    writer = ServerOutput(StdoutWriter(stdout or sys.stdout.buffer), answered)
    server.protocol.set_writer(writer)
    status = 0
    try:
        asyncio.run(serve(server, stdin or FdReader(sys.stdin.fileno()), writer, stop, opening))
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
