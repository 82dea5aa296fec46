"""Stage 1, the document: bytes in, a positioned tree and the problems met reading it out.

* ``source`` decodes bytes (BOMs, UTF-8, binary detection) into a ``SourceFile`` that turns
  character offsets into lines and columns;
* ``parse`` reads YAML 1.1 (as the service does) or JSON into ``Node``s (``nodes``), each with
  its span, through ``yaml_parser``/``yaml_composer``/``yaml_errors`` and ``json_parser``, with
  the shared limits and diagnostics in ``parse_result``;
* ``string_offsets`` maps each character of a string value back to the file, so an embedded
  ``yaml_definition`` or a template error is reported at its real line;
* ``data_tree`` builds nodes from plain data, for requests that arrive without a file.

Nothing here knows what a workflow is.
"""
