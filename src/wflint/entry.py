"""The ``wflint`` command's entry point.

An editor starts ``wflint lsp`` as it opens a workflow and waits for the first diagnostics;
the command line's parser (click, and every other command's options: about 30 ms) is no part
of that, so exactly ``wflint lsp`` starts the server directly. Everything else, ``wflint lsp
--help`` included, goes through the command line (``wflint.cli``).
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["lsp"]:
        from .lsp.start import run_language_server

        run_language_server()
        return
    from .cli import main as command_line

    command_line()
