"""What the server offers, declared once, and its answer to ``initialize``, with nothing from
pygls or lsprotocol.

The server (``server.build``) registers its features with these options, and pygls computes its
``initialize`` answer from them and the client's capabilities. The opening of a session
(``opening``) must answer ``initialize`` before pygls is imported, so ``initialize_result``
works out the same answer from the same declarations, following pygls's rules for the few parts
that depend on the client:

* the position encoding: the first of the client's ``general.positionEncodings`` that is UTF-8,
  UTF-16 or UTF-32, else UTF-16;
* ``textDocumentSync.willSave`` and ``willSaveWaitUntil``: false when the client states either
  capability (the server registers neither), absent otherwise;
* ``renameProvider``: ``{"prepareProvider": true}`` when the client supports
  ``prepareRename``, else ``true`` (the protocol allows rename options only then).

A test holds this answer equal to pygls's own for many clients' capabilities; ``framing`` also
compares the two when the server takes the session over, and says so on standard error if
they ever differ.
"""

from __future__ import annotations

from typing import Any

#: the protocol's TextDocumentSyncKind.Incremental: edits arrive as ranges
TEXT_SYNC_INCREMENTAL = 2
COMPLETION_TRIGGERS = [" ", "{", "[", ",", "-", '"']
#: the code action kind of "fix everything wflint can fix in this file"
FIX_ALL_KIND = "source.fixAll.wflint"
CODE_ACTION_KINDS = ["quickfix", FIX_ALL_KIND]
#: the encodings pygls can count columns in, by their protocol names
POSITION_ENCODINGS = ("utf-8", "utf-16", "utf-32")
DEFAULT_ENCODING = "utf-16"


def capability(mapping: Any, *path: str) -> Any:
    """The client capability at ``path`` (None where a step is missing or not an object)."""
    for key in path:
        if not isinstance(mapping, dict):
            return None
        mapping = mapping.get(key)
    return mapping


def position_encoding(capabilities: dict[str, Any]) -> str:
    """The encoding columns are counted in for a client with these capabilities."""
    offered = capability(capabilities, "general", "positionEncodings")
    for name in offered if isinstance(offered, list) else ():
        if name in POSITION_ENCODINGS:
            return name
    return DEFAULT_ENCODING


def initialize_result(capabilities: dict[str, Any], version: str) -> dict[str, Any]:
    """The server's answer to ``initialize`` from a client with ``capabilities``, as pygls
    writes it (fields without a value left out)."""
    sync: dict[str, Any] = {"openClose": True, "change": TEXT_SYNC_INCREMENTAL}
    for name in ("willSave", "willSaveWaitUntil"):
        if capability(capabilities, "textDocument", "synchronization", name) is not None:
            sync[name] = False
    sync["save"] = True
    prepare = capability(capabilities, "textDocument", "rename", "prepareSupport")
    return {
        "capabilities": {
            "positionEncoding": position_encoding(capabilities),
            "textDocumentSync": sync,
            "completionProvider": {"triggerCharacters": list(COMPLETION_TRIGGERS)},
            "hoverProvider": True,
            "definitionProvider": True,
            "referencesProvider": True,
            "documentSymbolProvider": True,
            "codeActionProvider": {"codeActionKinds": list(CODE_ACTION_KINDS)},
            "renameProvider": {"prepareProvider": True} if prepare else True,
            "executeCommandProvider": {"commands": []},
            "workspace": {"workspaceFolders": {"supported": True, "changeNotifications": True},
                          "fileOperations": {}},
        },
        "serverInfo": {"name": "wflint", "version": version},
    }
