"""A YAML stream holds more than one document.

**What it checks.** A ``---`` separator followed by a second document.

**Why.** The service reads exactly one document and answers 422 "Invalid YAML: but found
another document". wflint checks the first document and reports the second.

**Bad**::

    title: a
    workflow_definition: {parameters: [], blocks: []}
    ---
    title: b

**Good**: one workflow per file.
"""

CODE = "WF005"
NAME = "multiple-documents"
SEVERITY = "error"
PRODUCED_BY = "the parser"
check = None
