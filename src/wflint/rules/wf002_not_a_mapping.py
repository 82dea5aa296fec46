"""The document (or an embedded ``yaml_definition``) is not a mapping.

**What it checks.** The top of a workflow file is a mapping with ``title`` and
``workflow_definition`` (or an update body with ``json_definition``/``yaml_definition``).
An empty file, a list or a bare scalar is reported.

**Why.** On the YAML path the service's sanitizer crashes on anything but a mapping and
answers 500; on the JSON path the body model answers 422.

**Bad**::

    - title: my workflow

**Good**::

    title: my workflow
    workflow_definition: {parameters: [], blocks: []}
"""

CODE = "WF002"
NAME = "not-a-mapping"
SEVERITY = "error"
PRODUCED_BY = "the parser and the request unwrapper"
check = None
