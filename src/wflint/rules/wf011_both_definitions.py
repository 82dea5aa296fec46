"""An update body holds both ``json_definition`` and ``yaml_definition``.

**What it checks.** Both keys carry a usable value.

**Why.** The service uses ``yaml_definition`` and ignores ``json_definition``, yet still
validates it while parsing the body: an invalid ``json_definition`` fails the request even
though it is never used. Send one of the two. wflint checks the YAML fully and the JSON for
model errors only, as the service does.

**Bad**::

    {"json_definition": {...}, "yaml_definition": "title: ..."}

**Good**::

    {"yaml_definition": "title: ..."}
"""

CODE = "WF011"
NAME = "both-definitions"
SEVERITY = "warning"
PRODUCED_BY = "the request unwrapper"
check = None
