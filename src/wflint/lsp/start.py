"""Starting the language server, with a clear message when its packages are missing.

Both ways in use it: ``wflint lsp`` through the command line, and the ``wflint`` entry point's
short way for exactly ``wflint lsp`` (``wflint.entry``), which an editor runs as it opens a
file and which skips the command line's parser.
"""

from __future__ import annotations

import sys

#: the exit status of a usage error (``wflint.cli``'s EXIT_USAGE)
MISSING_EXTRA_STATUS = 2


def run_language_server() -> None:
    """Serve over stdio until the client says exit; exit 2 with the reason when pygls or
    lsprotocol is not installed."""
    try:
        from .server import run  # the other commands do not pay for pygls
    except ImportError as exc:
        print(f"wflint: the language server needs extra packages ({exc}); install wflint with its lsp extra, "
              "e.g. pip install './wflint[lsp]' from a clone", file=sys.stderr)
        sys.exit(MISSING_EXTRA_STATUS)
    run()
