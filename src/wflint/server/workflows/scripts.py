"""Create script (reference §9.8): path rules, per-file service checks and the file tree.

The path rule runs inside request-model validation (422 list form); the other checks run in
the handler, per file in list order, and answer 400 ``{"detail": ...}``.
"""

from __future__ import annotations

import ast
import base64
import binascii
import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

from .pysafety import python_refusal

BLOCKED_EXTENSIONS = frozenset({
    ".dylib", ".egg", ".pickle", ".pkl", ".pth", ".pyc", ".pyd", ".pyo", ".so", ".whl", ".zip",
})
MAX_FILE_BYTES = 10485760
MAX_DECODE_ROUNDS = 16
BAD_PATH = (
    "Script file path must be a relative POSIX path without empty, '.', '..', absolute, "
    "drive-qualified, backslash, or null-byte segments"
)
_DRIVE = re.compile(r"^[A-Za-z]:")


def decode_script_path(raw: str) -> str:
    """Percent-decode until stable (at most 16 rounds), then check the path; raises
    ``ValueError(BAD_PATH)`` for a path the service refuses."""
    path = raw
    for _ in range(MAX_DECODE_ROUNDS):
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    if (
        not path
        or "\0" in path
        or "\\" in path
        or path.startswith("/")
        or _DRIVE.match(path)
        or any(seg in ("", ".", "..") for seg in path.split("/"))
    ):
        raise ValueError(BAD_PATH)
    return path


@dataclass
class CheckedFile:
    path: str
    content: bytes
    mime_type: str | None
    content_hash: str


class ScriptRefused(Exception):
    """A 400 from the per-file checks; ``detail`` is the service's message."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _extension(path: str) -> str:
    name = PurePosixPath(path).name.lower()
    return PurePosixPath(name).suffix or name


def check_files(files: list[dict[str, Any]]) -> list[CheckedFile]:
    """The service's per-file checks, in order; the first failure raises ``ScriptRefused``.
    ``files`` hold already-decoded paths (see ``decode_script_path``)."""
    seen: set[str] = set()
    out: list[CheckedFile] = []
    for f in files:
        path = f["path"]
        ext = _extension(path)
        if ext in BLOCKED_EXTENSIONS:
            raise ScriptRefused(f"File {path!r} has prohibited extension {ext!r}")
        if path in seen:
            raise ScriptRefused(f"Duplicate script file path {path!r}")
        seen.add(path)
        if f.get("encoding", "base64") == "base64":
            try:
                content = base64.b64decode(f["content"], validate=True)
            except (binascii.Error, ValueError):
                raise ScriptRefused(f"File {path!r} is not valid base64") from None
        else:
            content = f["content"].encode("utf-8", "surrogatepass")
        if len(content) > MAX_FILE_BYTES:
            raise ScriptRefused(f"File {path!r} exceeds maximum size of {MAX_FILE_BYTES} bytes")
        if path.lower().endswith(".py"):
            _check_python(path, content)
        out.append(CheckedFile(path, content, f.get("mime_type"),
                               "sha256:" + hashlib.sha256(content).hexdigest()))
    return out


def _check_python(path: str, content: bytes) -> None:
    try:
        source = content.decode("utf-8")
    except UnicodeDecodeError:
        raise ScriptRefused(f"Python file {path!r} is not valid UTF-8") from None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        raise ScriptRefused(f"Python file {path!r} does not parse") from None
    except (RecursionError, MemoryError):  # e.g. a thousand unary minus signs in a row
        raise ScriptRefused(f"Python file {path!r} nests too deeply to be checked") from None
    reason = python_refusal(tree)
    if reason:
        raise ScriptRefused(f"Python file {path!r} is not allowed: {reason}")


def file_tree(files: list[CheckedFile], created_at: str) -> dict[str, Any]:
    """The tree exactly as the service returns it: top-level files are file nodes; a path
    with a directory only contributes its first segment, as an empty directory node (a later
    nested path turns an earlier same-named file into that directory)."""
    tree: dict[str, Any] = {}
    for f in files:
        first, sep, _rest = f.path.partition("/")
        if sep:
            if tree.get(first, {}).get("type") != "directory":
                # the client requires a date-time here too: the directory's first file's
                tree[first] = {"type": "directory", "size": None, "mime_type": None,
                               "content_hash": None, "created_at": created_at, "children": {}}
        else:
            tree[first] = {"type": "file", "size": len(f.content), "mime_type": f.mime_type,
                           "content_hash": f.content_hash, "created_at": created_at,
                           "children": None}
    return tree
