"""The file cannot be read as YAML or JSON.

**What it checks.** The file decodes as UTF-8 (a byte-order mark is fine), is not binary,
and parses: YAML 1.1 as the service reads it, or JSON. Alias bombs and absurdly deep nesting
are refused here too. The position is the parser's own mark.

**Why.** The service refuses the whole request: "Invalid YAML: ..." (422) for
``yaml_definition``, ``json_invalid`` (422) for a JSON body. Nothing else can be checked.

**Bad**::

    workflow_definition:
      blocks: [ {block_type: wait

**Good**::

    workflow_definition:
      blocks: [ {block_type: wait, label: pause, wait_sec: 5} ]
"""

CODE = "WF001"
NAME = "syntax-error"
SEVERITY = "error"
PRODUCED_BY = "the parser"
check = None
