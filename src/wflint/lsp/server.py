"""The pygls wiring of ``wflint lsp``: documents in, features out, over stdio.

Checks never run on the event loop: a change schedules one on a worker thread, and its
diagnostics are published only if the document has not changed since. A change after a pause is
checked at once; a change that follows another within ``DEBOUNCE_SECONDS`` (a burst: a paste
sent in pieces, an editor's formatting) waits until the burst has been quiet that long, a newer
change cancelling the pending check. Requests (hover, completion, ...) run on a second
worker thread, so a long check does not hold them up, and every handler turns an unexpected
error into a logged message and an empty answer: a document never takes the server down.

The configuration of a document is the nearest ``.wflint.toml`` or ``pyproject.toml`` with
``[tool.wflint]`` above it, as ``wflint check`` finds it, read again whenever one of those files
changes (the server watches them, and compares modification times before each check).
"""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from ..api import InternalError
from ..core.diagnostics import Diagnostic
from . import actions, capabilities, completion, hover, navigation, symbols, textsync
from .configs import CONFIG_NAMES, ConfigCache
from .diagnostics import findings, from_wire, to_lsp
from .documents import Document, is_checked
from .opening import Opened, Opening

#: changes closer together than this are a burst, checked once it has been quiet this long
DEBOUNCE_SECONDS = 0.03
_REQUEST_FAILED = -32803


class WflintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("wflint", __version__, text_document_sync_kind=lsp.TextDocumentSyncKind(
            capabilities.TEXT_SYNC_INCREMENTAL))
        self.checks = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wflint-check")
        self.requests = ThreadPoolExecutor(max_workers=1, thread_name_prefix="wflint-request")
        self.pending: dict[str, asyncio.Task] = {}
        #: uri → when its last change arrived (time.monotonic)
        self.last_change: dict[str, float] = {}
        #: uri → (document, its findings) of the last check
        self.checked: dict[str, tuple[Document, list[Diagnostic]]] = {}
        #: uri → the diagnostics last published for it
        self.published: dict[str, list[lsp.Diagnostic]] = {}
        self.configs = ConfigCache(self._show_warning)
        self.docs_url: str | None = None
        #: error messages already shown to the user
        self.said: set[str] = set()
        #: the first document, checked and published before the server started (``opening``)
        self.opened_early: Opened | None = None

    def take_over(self, opening: Opening) -> None:
        """Go on from what the opening of the session did before pygls was imported."""
        if opening.configs is not None:
            opening.configs.report = self._show_warning
            self.configs = opening.configs
        self.opened_early = opening.opened

    def seed_opened(self, uri: str) -> bool:
        """Take the findings the opening published for ``uri`` when they are of the text the
        editor holds, so it is not checked twice; False when there are none to take."""
        early = self.opened_early
        if early is None or early.document.uri != uri:
            return False
        self.opened_early = None
        current = self.document(uri)
        if current is None or (current.version, current.text, current.encoding, current.path) != (
                early.document.version, early.document.text, early.document.encoding, early.document.path):
            return False
        self.checked[uri] = (early.document, early.findings)
        self.published[uri] = from_wire(early.published)
        return True

    # -- documents ---------------------------------------------------------------------------
    def _show_warning(self, message: str) -> None:
        self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Warning, message=message))

    def wanted(self, uri: str) -> bool:
        """An open YAML or JSON document (a closed one is never read from disk here)."""
        text_doc = self.workspace.text_documents.get(uri)
        if text_doc is None:
            return False
        return is_checked(to_fs_path(uri) or uri, text_doc.language_id)

    def document(self, uri: str) -> Document | None:
        """The document as the editor holds it now (the last check's, when it is current)."""
        if not self.wanted(uri):
            return None
        text_doc = self.workspace.get_text_document(uri)
        cached = self.checked.get(uri)
        if cached is not None and cached[0].version == text_doc.version and cached[0].text == text_doc.source:
            return cached[0]
        config = self.configs.for_path(to_fs_path(uri))
        # the workspace's encoding is lsprotocol's string enum: equal to its protocol name
        agreed = self.workspace.position_encoding
        encoding = next((e for e in capabilities.POSITION_ENCODINGS if e == agreed), capabilities.DEFAULT_ENCODING)
        return Document.opened(uri, to_fs_path(uri), text_doc.source, text_doc.version, text_doc.language_id,
                               encoding, config.mode, config.target_version)

    # -- checks ------------------------------------------------------------------------------
    def changed(self, uri: str) -> None:
        """A change: checked at once after a pause, debounced within a burst."""
        now = time.monotonic()
        last = self.last_change.get(uri)
        self.last_change[uri] = now
        burst = last is not None and now - last < DEBOUNCE_SECONDS
        self.schedule(uri, DEBOUNCE_SECONDS if burst else 0)

    def schedule(self, uri: str, delay: float = DEBOUNCE_SECONDS) -> None:
        task = self.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._check(uri, delay))

    async def _check(self, uri: str, delay: float) -> None:
        try:
            if delay:
                await asyncio.sleep(delay)
            doc = self.document(uri)
            if doc is None:
                return
            config = self.configs.for_path(to_fs_path(uri))
            loop = asyncio.get_running_loop()
            diags = await loop.run_in_executor(self.checks, findings, doc, config)
            current = self.document(uri)
            if current is None or current.version != doc.version or current.text != doc.text:
                return
            published = await loop.run_in_executor(self.checks, to_lsp, doc, diags,
                                                   self.docs_url or config.docs_url)
            self.checked[uri] = (doc, diags)
            self.published[uri] = published
            self.text_document_publish_diagnostics(
                lsp.PublishDiagnosticsParams(uri=uri, version=doc.version, diagnostics=published))
        except asyncio.CancelledError:
            pass
        except InternalError as exc:  # a rule crashed: a wflint bug, shown once per message, never fatal
            message = f"wflint: internal error: {exc}"
            if message not in self.said:
                self.said.add(message)
                self.window_show_message(lsp.ShowMessageParams(type=lsp.MessageType.Error, message=message))
            self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error, message=traceback.format_exc()))
        except Exception:  # noqa: BLE001 - a failed check is logged, never fatal
            self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error,
                                                         message=f"wflint: check failed:\n{traceback.format_exc()}"))
        finally:
            if self.pending.get(uri) is asyncio.current_task():
                del self.pending[uri]

    def recheck_all(self) -> None:
        for uri in list(self.workspace.text_documents):
            if self.wanted(uri):
                self.schedule(uri, 0)

    async def run_request(self, uri: str, fn: Callable[..., Any], *args: Any, default: Any = None) -> Any:
        """Run a feature on the request thread; errors are logged and give ``default``."""
        doc = self.document(uri)
        if doc is None or doc.too_large:
            return default
        try:
            return await asyncio.get_running_loop().run_in_executor(self.requests, fn, doc, *args)
        except (JsonRpcException, navigation.RenameRefused):
            raise
        except Exception:  # noqa: BLE001
            self.window_log_message(lsp.LogMessageParams(type=lsp.MessageType.Error,
                                                         message=f"wflint: {fn.__name__} failed:\n{traceback.format_exc()}"))
            return default

    def diagnostics_of(self, doc: Document) -> list[Diagnostic] | None:
        """The findings of the last check, if it was of this text."""
        cached = self.checked.get(doc.uri)
        return cached[1] if cached is not None and cached[0].text == doc.text else None


def _offset(doc: Document, position: lsp.Position) -> int:
    return doc.lines.offset(position)


def build() -> WflintServer:
    server = WflintServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: WflintServer, params: lsp.InitializeParams) -> None:
        textsync.install(ls.workspace)  # changes applied at the cost of the edit (21 MB: ms, not 0.9 s)
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("rulesDocsUrl"), str):
            ls.docs_url = options["rulesDocsUrl"]

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: WflintServer, _params: lsp.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        watch = caps.did_change_watched_files if caps is not None else None
        if watch is not None and watch.dynamic_registration:
            watchers = [lsp.FileSystemWatcher(glob_pattern=f"**/{name}") for name in CONFIG_NAMES]
            try:
                await ls.client_register_capability_async(lsp.RegistrationParams(registrations=[lsp.Registration(
                    id="wflint-config-watch", method=lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                    register_options=lsp.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))
            except Exception:  # noqa: BLE001 - without watching, times are still compared per check
                pass

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: WflintServer, params: lsp.DidOpenTextDocumentParams) -> None:
        uri = params.text_document.uri
        if ls.wanted(uri) and not ls.seed_opened(uri):
            ls.schedule(uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: WflintServer, params: lsp.DidChangeTextDocumentParams) -> None:
        if ls.wanted(params.text_document.uri):
            ls.changed(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: WflintServer, params: lsp.DidSaveTextDocumentParams) -> None:
        if params.text_document.uri.endswith(CONFIG_NAMES):
            ls.configs.clear()
            ls.recheck_all()

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: WflintServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        ls.last_change.pop(uri, None)
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        ls.published.pop(uri, None)
        if ls.checked.pop(uri, None) is not None:
            ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: WflintServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        if any(change.uri.endswith(CONFIG_NAMES) for change in params.changes):
            ls.configs.clear()
            ls.recheck_all()

    @server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=list(capabilities.CODE_ACTION_KINDS)))
    async def code_action(ls: WflintServer, params: lsp.CodeActionParams):
        uri = params.text_document.uri
        doc = ls.document(uri)
        if doc is None:
            return None
        config = ls.configs.for_path(to_fs_path(uri))
        known = ls.published.get(uri, []) if ls.diagnostics_of(doc) is not None else []
        return await ls.run_request(uri, actions.code_actions, config, params, known, default=None)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: WflintServer, params: lsp.HoverParams):
        uri = params.text_document.uri
        doc = ls.document(uri)
        if doc is None:
            return None
        diags = ls.diagnostics_of(doc)
        config = ls.configs.for_path(to_fs_path(uri))
        # before the first check of this text is done, hover finds the problems itself
        return await ls.run_request(uri, lambda d: hover.hover(
            d, _offset(d, params.position), diags if diags is not None else findings(d, config)))

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=capabilities.COMPLETION_TRIGGERS))
    async def on_completion(ls: WflintServer, params: lsp.CompletionParams):
        return await ls.run_request(params.text_document.uri,
                                    lambda d: completion.complete(d, _offset(d, params.position)))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    async def on_definition(ls: WflintServer, params: lsp.DefinitionParams):
        return await ls.run_request(params.text_document.uri,
                                    lambda d: navigation.definition(d, _offset(d, params.position)))

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    async def on_references(ls: WflintServer, params: lsp.ReferenceParams):
        return await ls.run_request(params.text_document.uri, lambda d: navigation.references(
            d, _offset(d, params.position), params.context.include_declaration))

    @server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
    async def on_prepare_rename(ls: WflintServer, params: lsp.PrepareRenameParams):
        return await ls.run_request(params.text_document.uri,
                                    lambda d: navigation.prepare_rename(d, _offset(d, params.position)))

    @server.feature(lsp.TEXT_DOCUMENT_RENAME, lsp.RenameOptions(prepare_provider=True))
    async def on_rename(ls: WflintServer, params: lsp.RenameParams):
        try:
            return await ls.run_request(params.text_document.uri,
                                        lambda d: navigation.rename(d, _offset(d, params.position), params.new_name))
        except navigation.RenameRefused as exc:
            raise JsonRpcException(f"wflint: cannot rename: {exc}", code=_REQUEST_FAILED) from None

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    async def on_symbols(ls: WflintServer, params: lsp.DocumentSymbolParams):
        return await ls.run_request(params.text_document.uri, symbols.symbols, default=[])

    return server


def run(opening: Opening | None = None, stdin: Any = None) -> None:
    """Serve over stdin/stdout until the client says exit, going on from ``opening`` (what was
    read from ``stdin`` and answered before pygls was imported) when given."""
    logging.basicConfig(level=logging.WARNING)
    from .framing import serve_stdio  # the base protocol, read so that no frame can wedge it

    server = build()
    if opening is not None:
        server.take_over(opening)
    serve_stdio(server, stdin, opening=opening)
