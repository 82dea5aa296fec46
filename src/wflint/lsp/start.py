"""Starting the language server, with a clear message when its packages are missing.

Both ways in use it: ``wflint lsp`` through the command line, and the ``wflint`` entry point's
short way for exactly ``wflint lsp`` (``wflint.entry``), which an editor runs as it opens a
file and which skips the command line's parser.

The session's first frames are answered before pygls and lsprotocol are imported
(``opening``): the editor's first diagnostics do not wait for them. Whether they are installed
is asked first, without importing them, so a missing extra still ends at once with status 2.
"""

from __future__ import annotations

import sys
from importlib.util import find_spec

from ..core.exit_status import EXIT_USAGE as MISSING_EXTRA_STATUS


def _missing_extra(exc: Exception | str) -> None:
    print(f"wflint: the language server needs extra packages ({exc}); install wflint with its lsp extra, "
          "e.g. pip install './wflint[lsp]' from a clone", file=sys.stderr)
    sys.exit(MISSING_EXTRA_STATUS)


def run_language_server() -> None:
    """Serve over stdio until the client says exit; exit 2 with the reason when pygls or
    lsprotocol is not installed."""
    for package in ("pygls", "lsprotocol"):
        if find_spec(package) is None:
            _missing_extra(f"No module named '{package}'")
    from .opening import open_session
    from .wire import FdReader

    stdin = FdReader(sys.stdin.fileno())
    opening = open_session(stdin, sys.stdout.buffer)
    try:
        from .server import run  # the other commands, and the first diagnostics, do not pay for pygls
    except ImportError as exc:
        _missing_extra(exc)
    run(opening, stdin)
