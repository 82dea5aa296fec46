"""The document (or an embedded ``yaml_definition``) is not a mapping.

**What it checks.** The top of a workflow file is a mapping with ``title`` and
``workflow_definition`` (or an update body with ``json_definition``/``yaml_definition``).
An empty file (or one holding only whitespace or comments), ``null``, a list or a bare
scalar is reported, with the service's status, whenever the file is checked: a file named on
the command line or piped on standard input always is (the pre-commit hook's
``--skip-non-workflows`` and a directory walk leave files that are not workflows alone).

**Why.** The service refuses every one of them. On the YAML path an empty string counts as
no definition (422 "Invalid workflow definition. Workflow should be provided in either yaml
or json format."), whitespace, comments, ``null`` and scalars crash its sanitizer (500), and
a list gives 500, or 422 when each item is a two-key mapping. On the JSON path ``null`` is
no definition (422) and any other non-object fails the body model (422).

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
