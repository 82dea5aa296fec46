"""Replace a file's content without ever leaving it half-written.

The new bytes go to a temporary file in the same directory (so the rename stays on one file
system), are flushed and synced, get the original's mode and (when we may) owner, and are
renamed over the original. Any failure on the way removes the temporary file and leaves the
original byte for byte. A file whose bytes changed since they were read (an editor saved
while ``fix`` ran) is refused rather than overwritten.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class FileChangedError(OSError):
    """The file on disk is no longer the one that was read."""


def replace_file(path: Path, data: bytes, expected: bytes) -> None:
    """Write ``data`` as the content of ``path`` if it still holds ``expected``; raises
    ``OSError`` (``FileChangedError`` when it changed) and then leaves ``path`` untouched."""
    path = Path(os.path.realpath(path))  # a symlink keeps pointing at the fixed file
    before = os.stat(path)
    temp_fd, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".wflint-tmp", dir=path.parent)
    try:
        with os.fdopen(temp_fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), stat.S_IMODE(before.st_mode))
            if hasattr(os, "fchown"):
                try:
                    os.fchown(out.fileno(), before.st_uid, before.st_gid)
                except PermissionError:
                    pass  # not ours to give away; the file keeps our ownership, as an editor's save would
        # Checked as late as possible: the window between this read and the rename is tiny.
        if _read(path) != expected:
            raise FileChangedError(f"{path} changed while it was being fixed; not overwritten")
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except FileNotFoundError:
            pass
        raise
    _sync_directory(path.parent)


def _read(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; some platforms cannot open a directory, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
