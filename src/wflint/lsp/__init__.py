"""``wflint lsp``: a Language Server Protocol server over stdio (the ``lsp`` extra: pygls,
lsprotocol).

Everything the server knows comes from the rest of wflint: diagnostics from ``api`` (the same
findings as ``wflint check``), quick fixes and renames from ``fix`` (the same edits as
``wflint fix``), field knowledge from ``model``, names and scopes from ``workflow``. The modules:

* ``start`` and ``opening``: the session's first frames, ``initialize`` and the first
  document's diagnostics, answered before pygls and lsprotocol are imported (``capabilities``
  declares what the server offers, for both; ``wire`` reads and writes frames);
* ``server``: the pygls wiring, debounced checks off the event loop, configuration reloads
  (``configs``), taking the session over from the opening; ``framing``: the loop that feeds it;
* ``documents``: one document's text, parsed tree and workflows, and the name under the cursor;
* ``positions``: character offsets to and from LSP positions (UTF-16/8/32);
* ``diagnostics``, ``actions``, ``hover``, ``completion``, ``navigation``, ``symbols``: one
  feature each, pure functions of a document (and the config), so tests can call them too.
"""
