"""The request's definition is not under ``workflow_definition``.

**What it checks.** A request whose definition sits anywhere but under its top-level
``workflow_definition`` key: the *flat* layout (``title``, ``parameters`` and ``blocks`` side
by side at the top, common in third-party documentation), a definition under another name
(``definition:``, ``workflow:``), or the whole request nested under another key.

**Why.** The service reads the definition from ``workflow_definition`` and nowhere else. It
drops every key it does not know and refuses the request: 422 ``workflow_definition: Field
required`` (and ``title: Field required`` when the title went with it). wflint reports this
once, with the service's status, and checks the rest as the request the author meant, so
the other problems show up in the same run. ``wflint fix`` wraps the definition (moves the
flat keys under ``workflow_definition``, renames the key, or lifts the nested request).

**Bad**::

    title: Orders
    parameters: []
    blocks:
      - block_type: goto_url
        label: open
        url: https://example.com

**Good**::

    title: Orders
    workflow_definition:
      parameters: []
      blocks:
        - block_type: goto_url
          label: open
          url: https://example.com
"""

CODE = "WF013"
NAME = "missing-wrapper"
SEVERITY = "error"
PRODUCED_BY = "the request unwrapper"
check = None
