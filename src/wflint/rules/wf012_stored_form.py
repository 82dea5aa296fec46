"""The file holds a workflow as the service stores it, not as a request.

**What it checks.** A file holding a workflow the way GET or list answers it: ids and
timestamps at the top (``workflow_id``, ``organization_id``, ``workflow_permanent_id``,
``created_at`` ...), an ``output_parameter`` on every block, an ``output`` parameter per
block, ids and timestamps on parameters, full parameter objects where a request has
``parameter_keys``. The definition exported by ``skyvern workflow get --definition-file`` (ids and output
parameters taken out, but every stored field left on every block, such as ``disable_cache`` on
a wait block) counts too, when it holds such a field.

**Why.** Sent back as it is, the service reads the file as a request: it drops every field a
request does not have, and judges what is left. Whether it saves the file is therefore said
by the other findings, with the service's status, as for any request: the output parameters
are refused ("Cannot manually create output parameters", 422, WF208), a ``for_loop`` whose
source is only the stored ``loop_over`` object has no source (WF211), a context parameter
whose ``source`` is an object lacks ``source_parameter_key`` (WF101), a code block carrying
``parameters`` is refused (WF104). This note, a warning, is the one finding that says "this is
an export, convert it" (the server-written fields it speaks for draw no unknown-field warning
of their own). ``wflint check`` groups the output-parameter errors of such a file (WF208, and
the WF207 of the same keys) under this note, which then takes their severity and the service's
status and counts them; ``--format json`` lists them as its ``related``, SARIF as its
``relatedLocations``, and ``--show-grouped`` reports each on its own. ``wflint fix`` rewrites the file into the request it came from, as a person
would write it: server-written fields and ids dropped, ``parameters`` objects turned back into
``parameter_keys``, values equal to the service's defaults and nulls left out, the order of
keys kept, comments kept in YAML.

**Bad**::

    title: Orders
    workflow_definition:
      parameters:
        - parameter_type: output
          key: open_output
          output_parameter_id: op_123
      blocks:
        - label: open
          block_type: goto_url
          url: https://example.com
          output_parameter: {key: open_output, output_parameter_id: op_123}

**Good**::

    title: Orders
    workflow_definition:
      parameters: []
      blocks:
        - label: open
          block_type: goto_url
          url: https://example.com
"""

CODE = "WF012"
NAME = "stored-form"
SEVERITY = "warning"
PRODUCED_BY = "the request unwrapper"
check = None
