"""``--output-file``: the report goes to a file (a CI artifact), a one-line summary to the
terminal."""

from __future__ import annotations

from pathlib import Path


class OutputFileError(Exception):
    """The report file cannot be written (a usage error: exit 2)."""


def write_report(path: Path, text: str) -> None:
    """Write ``text`` as UTF-8, creating missing parent folders (CI jobs often write into a
    fresh ``reports/``). A character UTF-8 cannot hold is written as ``?`` rather than lost
    with the whole report."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8", errors="replace", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        raise OutputFileError(f"cannot write the report to {path}: {exc.strerror or exc}") from None
