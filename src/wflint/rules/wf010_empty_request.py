"""An update body holds neither ``json_definition`` nor ``yaml_definition``.

**What it checks.** A file shaped as an update body (it has a ``json_definition`` or
``yaml_definition`` key) must carry a non-null ``json_definition`` object or a non-empty
``yaml_definition`` string. An empty string counts as absent.

**Why.** The service answers 422 "Invalid workflow definition. Workflow should be provided
in either yaml or json format."

**Bad**::

    {"json_definition": null, "yaml_definition": ""}

**Good**::

    {"yaml_definition": "title: t\\nworkflow_definition: {parameters: [], blocks: []}\\n"}
"""

CODE = "WF010"
NAME = "empty-request"
SEVERITY = "error"
PRODUCED_BY = "the request unwrapper"
check = None
