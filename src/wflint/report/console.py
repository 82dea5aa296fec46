"""Writing a report to standard output whole, or failing loudly.

A text stream drops what its raw file did not take: under ``python -u`` (or
``PYTHONUNBUFFERED``, common in CI) standard output is a text layer over an unbuffered file,
and a write the kernel takes only in part (above 2,147,479,552 bytes on Linux, or a signal
mid-write) loses the rest without an error. So the text is encoded here and handed to the
binary layer in bounded chunks, each written until every byte is taken.
"""

from __future__ import annotations

import os
from typing import IO

#: characters encoded and written at a time: the memory a write holds stays bounded
CHUNK_CHARS = 1 << 20


def write_all(text: str, stream: IO[str]) -> None:
    """Write ``text`` to ``stream`` completely (raises ``OSError`` if it cannot)."""
    binary = getattr(stream, "buffer", None)
    if binary is None:  # a plain text sink (StringIO): it takes everything it is given
        stream.write(text)
        stream.flush()
        return
    stream.flush()  # what was written through the text layer goes first
    encoding = getattr(stream, "encoding", None) or "utf-8"
    errors = getattr(stream, "errors", None) or "strict"
    translate = os.linesep != "\n"  # a text stream on Windows writes \r\n
    for start in range(0, len(text), CHUNK_CHARS):
        chunk = text[start:start + CHUNK_CHARS]
        if translate:
            chunk = chunk.replace("\n", os.linesep)
        _write_bytes(binary, chunk.encode(encoding, errors))
    binary.flush()


def _write_bytes(binary, data: bytes) -> None:
    view = memoryview(data)
    while view:
        taken = binary.write(view)
        if taken is None:  # a non-blocking file that is full: wait for it rather than drop bytes
            import select

            select.select([], [binary], [])
            continue
        if taken <= 0:
            raise OSError("standard output took no bytes; the report is incomplete")
        view = view[taken:]
