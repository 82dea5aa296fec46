"""The base protocol's frames on a byte stream, with nothing from pygls: read, split and written
by the opening of a session (``opening``, before pygls is imported) and by the loop that serves
the rest (``framing``) alike.

A frame is ``Content-Length: N`` (header names in any case; other headers ignored), an empty
line, and N bytes of JSON. A frame that cannot be read raises ``FramingError``: on a byte
stream that lost its framing, resynchronising would only guess.
"""

from __future__ import annotations

import json
import os
from typing import Any

#: bytes of one header line, and of one message body
MAX_HEADER_LINE = 8192
MAX_BODY_BYTES = 256 * 1024 * 1024
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602


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
