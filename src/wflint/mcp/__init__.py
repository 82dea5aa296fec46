"""``wflint mcp``: a Model Context Protocol server for the AI agents that write workflows (the
``mcp`` extra: the official MCP Python SDK).

It is a thin layer over the library API, like ``wflint lsp``: findings from ``api`` (the same
as ``wflint check``), fixes from ``fix``, runs from ``simulate``, pictures from ``graph``, field
knowledge from ``model``. The modules:

* ``start``: ``wflint mcp``'s entry, with a clear message when the SDK is missing;
* ``server``: the SDK wiring: tools with typed inputs, results checked against ``shapes``,
  resources and the prompt; every failure answered as a structured error;
* ``tools``: check, fix, simulate and graph as plain functions; ``knowledge``: explain_rule,
  block_schema, the rule catalogue and the schemas; ``guide``: the instructions and the prompt;
* ``inputs``: a workflow given as text or a path, read within the limits (``BadInput``);
* ``findings`` and ``json_paths``: diagnostics in an agent's terms, with JSON paths and fixes.
"""
