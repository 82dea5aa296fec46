"""The file holds a workflow as the service stores it, not as a request.

**What it checks.** A file holding a workflow the way GET or list answers it: ids and
timestamps at the top (``workflow_id``, ``organization_id``, ``workflow_permanent_id``,
``created_at`` ...), an ``output_parameter`` on every block, an ``output`` parameter per
block, ids and timestamps on parameters, full parameter objects where a request has
``parameter_keys``. The definition exported by ``skyvern workflow get --definition-file`` (ids and output
parameters taken out, but every stored field left on every block, such as ``disable_cache`` on
a wait block) counts too, when it holds such a field.

**Why.** Sent back as it is, the service refuses the output parameters ("Cannot manually
create output parameters", 422: an error) and silently drops every other server-written field
(a warning when that is all there is). wflint
reports the form once, checks the request it converts to, and ``wflint fix`` rewrites the
file into that request (server-written fields dropped, ``parameters`` objects turned back
into ``parameter_keys``), keeping comments in YAML.

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
SEVERITY = "error"
PRODUCED_BY = "the request unwrapper"
check = None
