"""SVG through Graphviz's ``dot`` program, when it is installed."""

from __future__ import annotations

import shutil
import subprocess

INSTALL_HINT = (
    "the svg format needs Graphviz's `dot` program, which is not installed (or not on PATH); install "
    "Graphviz (Debian/Ubuntu: apt-get install graphviz; macOS: brew install graphviz; Windows: winget "
    "install graphviz; others: https://graphviz.org/download/), or use --format dot or --format mermaid"
)


class GraphvizMissing(Exception):
    """``dot`` cannot be found: the CLI says how to get it and exits 2."""


def dot_program() -> str | None:
    return shutil.which("dot")


def to_svg(dot_text: str, program: str | None = None, timeout: float = 60) -> str:
    """Render DOT text to SVG with ``dot -Tsvg``. Raises GraphvizMissing without it, and
    RuntimeError when ``dot`` fails (our DOT is always valid, so that is a bug)."""
    exe = program or dot_program()
    if exe is None:
        raise GraphvizMissing(INSTALL_HINT)
    try:
        done = subprocess.run([exe, "-Tsvg"], input=dot_text.encode("utf-8"), capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise GraphvizMissing(INSTALL_HINT) from None
    if done.returncode != 0:
        raise RuntimeError(f"dot failed ({done.returncode}): {done.stderr.decode('utf-8', 'replace').strip()}")
    return done.stdout.decode("utf-8")
