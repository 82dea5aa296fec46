"""Whether the Node projects a few tests drive are installed, and if not, whether that is to be
skipped (no Node; `npm ci` could not reach the registry) or is a failure (never installed)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

#: left in a project by tools/install-test-tools.sh when `npm ci` failed there, with npm's words
NPM_FAILED_MARKER = ".npm-ci-failed"


def require(project: Path, installed: Path, what: str) -> None:
    """Skip (with the reason) or fail the calling test unless ``installed`` (a path inside the
    project's node_modules) exists."""
    if shutil.which("node") is None:
        pytest.skip(f"Node.js is not installed: {what} runs in Node")
    if installed.exists():
        return
    marker = project / NPM_FAILED_MARKER
    if marker.is_file():
        pytest.skip(f"{what} could not be installed by tools/install-test-tools.sh: "
                    + " ".join(marker.read_text(encoding="utf-8", errors="replace").split())[:400])
    pytest.fail(f"{what} is not installed for the tests: run `npm ci --prefix {project}` "
                "(tools/install-test-tools.sh does)")
