"""Stage 2, the workflow: a positioned tree in, typed workflow views out.

* ``unwrap`` finds the request in the forms a file can hold (a bare request, an update body
  with ``json_definition`` or an embedded ``yaml_definition`` string);
* ``sanitizer`` renames labels and keys as the service's YAML path does;
* ``view`` is the typed view every check reads: ``Workflow``, ``Block``, ``Param``, with a
  path back to the node of every value;
* ``routing`` is the routing graph (v2 ``next_block_label``, branches, loop scopes, the
  finally block) and the service's own graph check.
"""
