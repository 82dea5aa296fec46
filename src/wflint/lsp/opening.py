"""The opening of a session: ``initialize`` answered, and the first document the editor opens
checked and its diagnostics published, before pygls and lsprotocol are imported.

An editor starts ``wflint lsp`` as it opens a workflow, and waits. Importing pygls and
lsprotocol takes longer than checking a workflow, and the first diagnostics need neither, so
the opening reads the first frames itself:

1. ``initialize``, when its params have the shape the answer depends on, is answered with what
   pygls would answer (``capabilities.initialize_result``);
2. notifications before a document is opened (``initialized``, a client's settings) are
   passed over: they are kept for the server, which reads them in their turn;
3. the first ``textDocument/didOpen`` of a document the server checks is checked as the server
   checks it (the same configuration lookup, ``diagnostics.findings``), and its diagnostics are
   published (``diagnostics.to_wire``).

Anything else (another message first, a request, ``exit``, a frame that cannot be read, the
end of input, a failure) ends the opening at once, with nothing published for it. Every frame
read is kept, in order: the server (``server.run``) replays them all, so pygls's state is what
it would have been had it read them itself; it drops its own second answer to ``initialize``
(``framing.ServerOutput``) and takes the first document's findings from here instead of
checking it again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from .. import __version__
from ..core.diagnostics import Diagnostic
from .capabilities import capability, initialize_result
from .configs import ConfigCache
from .documents import Document, is_checked
from .wire import FramingError, frame, read_frame

#: the protocol's MessageType.Warning
_WARNING = 2
_TRACE_VALUES = ("off", "messages", "verbose")


@dataclass
class Opened:
    """The first document, as it was checked and published."""

    document: Document
    findings: list[Diagnostic]
    published: list[dict[str, Any]]


@dataclass
class Opening:
    """What the opening read and did, for the server to take over from."""

    #: every frame read, in order: a body, None for the end of input, or the read's error
    frames: list[bytes | None | Exception] = field(default_factory=list)
    #: the id and result of the ``initialize`` answered here (no id: none was answered)
    initialize_id: int | str | None = None
    initialize_answer: dict[str, Any] | None = None
    #: the ``initialize`` params limited to what was read here, for a server that cannot read
    #: the client's whole capabilities (``readable_initialize``)
    initialize_read: dict[str, Any] | None = None
    docs_url: str | None = None
    configs: ConfigCache | None = None
    opened: Opened | None = None


def open_session(reader: Any, out: BinaryIO) -> Opening:
    """Read and answer the session's first frames from ``reader`` (``wire.FdReader``), writing
    to ``out``, up to the first document's diagnostics or the first message it leaves to the
    server. A failure here (a wflint bug) ends the opening where it is: the server reads on
    from the frames kept, and answers what was not answered."""
    opening = Opening()

    def write(payload: dict[str, Any]) -> None:
        out.write(frame({"jsonrpc": "2.0", **payload}))
        out.flush()

    try:
        _answer_opening(reader, write, opening)
    except Exception:  # noqa: BLE001 - the session goes on with the server
        pass
    return opening


def _answer_opening(reader: Any, write: Any, opening: Opening) -> None:
    message = _next_message(reader, opening)
    readable = _readable_initialize(message) if message is not None and message.get("method") == "initialize" else None
    if readable is None:
        return
    params = message["params"]
    answer = initialize_result(params["capabilities"], __version__)
    # recorded before it is written: once the client may have it, the server must not answer again
    opening.initialize_id, opening.initialize_answer = message["id"], answer
    opening.initialize_read = readable
    write({"id": message["id"], "result": answer})
    options = params.get("initializationOptions")
    if isinstance(options, dict) and isinstance(options.get("rulesDocsUrl"), str):
        opening.docs_url = options["rulesDocsUrl"]
    opening.configs = ConfigCache(lambda text: write({"method": "window/showMessage",
                                                      "params": {"type": _WARNING, "message": text}}))
    encoding = answer["capabilities"]["positionEncoding"]
    while True:
        message = _next_message(reader, opening)
        if message is None:
            return
        method = message.get("method")
        if method != "textDocument/didOpen":
            if "id" in message or method == "exit" or not isinstance(method, str):
                return  # a request, exit or an answer: the server's business
            continue  # a notification (initialized, a setting): the server reads it in turn
        document = _opened_document(message)
        if document is None:
            return
        uri, text, version, language_id = document
        from pygls.uris import to_fs_path  # small: a path from a file uri, nothing of the server

        fs_path = to_fs_path(uri)
        if not is_checked(fs_path or uri, language_id):
            continue  # the server drops its notifications; wait for one it checks
        _check_and_publish(opening, uri, fs_path, text, version, language_id, encoding, write)
        return


def _check_and_publish(opening: Opening, uri: str, fs_path: str | None, text: str, version: int,
                       language_id: str, encoding: str, write: Any) -> None:
    from .diagnostics import findings, to_wire  # the checker's import: most of the opening's time

    assert opening.configs is not None
    config = opening.configs.for_path(fs_path)
    doc = Document.opened(uri, fs_path, text, version, language_id, encoding, config.mode, config.target_version)
    found = findings(doc, config)
    published = to_wire(doc, found, opening.docs_url or config.docs_url)
    write({"method": "textDocument/publishDiagnostics",
           "params": {"uri": uri, "version": version, "diagnostics": published}})
    opening.opened = Opened(doc, found, published)


def _next_message(reader: Any, opening: Opening) -> dict[str, Any] | None:
    """The next frame as a JSON object (kept in ``opening.frames``); None when there is none or
    it is not one: the server deals with it."""
    try:
        body = read_frame(reader)
    except (FramingError, OSError, ValueError) as exc:
        opening.frames.append(exc)
        return None
    opening.frames.append(body)
    if body is None:
        return None
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, dict) else None


def _opened_document(message: dict[str, Any]) -> tuple[str, str, int, str] | None:
    params = message.get("params")
    doc = params.get("textDocument") if isinstance(params, dict) else None
    if "id" in message or not isinstance(doc, dict):
        return None
    uri, text, version, language_id = (doc.get(k) for k in ("uri", "text", "version", "languageId"))
    if not (isinstance(uri, str) and isinstance(text, str) and isinstance(language_id, str)
            and _is_int(version)):
        return None
    return uri, text, version, language_id


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -2**31 <= value < 2**31


def _readable_initialize(message: dict[str, Any]) -> dict[str, Any] | None:
    """An ``initialize`` request's params limited as ``readable_initialize`` limits them, when
    pygls reads what the opening answers from: every field of InitializeParams but the
    client's capabilities, and of those the ones the server reads; None otherwise."""
    msg_id, params = message.get("id"), message.get("params")
    if not (_is_int(msg_id) or isinstance(msg_id, str)) or not isinstance(params, dict):
        return None
    folders = params.get("workspaceFolders")
    client = params.get("clientInfo")
    checks = (
        params.get("processId") is None or _is_int(params["processId"]),
        _optional(params, "rootUri", str) and _optional(params, "rootPath", str),
        _optional(params, "locale", str) and _optional(params, "workDoneToken", (int, str)),
        params.get("trace") is None or params["trace"] in _TRACE_VALUES,
        folders is None or (isinstance(folders, list) and all(
            isinstance(f, dict) and isinstance(f.get("uri"), str) and isinstance(f.get("name"), str)
            for f in folders)),
        client is None or (isinstance(client, dict) and isinstance(client.get("name"), str)
                           and _optional(client, "version", str)),
        isinstance(params.get("capabilities"), dict),
    )
    if not all(checks):
        return None
    for path, kind in _READ_CAPABILITIES.items():
        value = capability(params["capabilities"], *path)
        if value is not None and not isinstance(value, kind):
            return None
    encodings = capability(params["capabilities"], "general", "positionEncodings")
    if encodings is not None and not all(isinstance(e, str) for e in encodings):
        return None
    return readable_initialize(params)


def _optional(mapping: dict[str, Any], key: str, kind: Any) -> bool:
    return mapping.get(key) is None or isinstance(mapping[key], kind)


#: the client capabilities the opening's answer and the server's own code read, and the type
#: each must have
_READ_CAPABILITIES: dict[tuple[str, ...], type] = {
    ("general", "positionEncodings"): list,
    ("textDocument", "synchronization", "willSave"): bool,
    ("textDocument", "synchronization", "willSaveWaitUntil"): bool,
    ("textDocument", "rename", "prepareSupport"): bool,
    ("workspace", "didChangeWatchedFiles", "dynamicRegistration"): bool,
}


def readable_initialize(params: dict[str, Any]) -> dict[str, Any]:
    """``initialize``'s params with the client's capabilities limited to those the server
    reads: what the server is given when pygls cannot read the client's whole capabilities
    (one of a type lsprotocol does not expect), so that the opening's answer still holds."""
    limited: dict[str, Any] = {}
    for path in _READ_CAPABILITIES:
        value = capability(params.get("capabilities"), *path)
        if value is not None:
            *parents, name = path
            target = limited
            for key in parents:
                target = target.setdefault(key, {})
            target[name] = value
    return {**params, "capabilities": limited}
