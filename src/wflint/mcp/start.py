"""Starting the MCP server, with a clear message when its packages are missing."""

from __future__ import annotations

import sys
from importlib.util import find_spec

from ..core.exit_status import EXIT_USAGE


def run_mcp_server(transport: str = "stdio", host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve until the client goes away (stdio) or the process is stopped (streamable HTTP);
    exit 2 with the reason when the SDK is not installed."""
    if find_spec("mcp") is None:
        print("wflint: the MCP server needs extra packages (No module named 'mcp'); install wflint with its mcp "
              "extra, e.g. pip install './wflint[mcp]' from a clone", file=sys.stderr)
        sys.exit(EXIT_USAGE)
    from .server import build

    server = build()
    if transport == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host=host, port=port)
