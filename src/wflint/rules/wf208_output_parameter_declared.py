"""A parameter of type ``output`` is declared by hand.

**What it checks.** No entry of ``parameters`` has ``parameter_type: output``.

**Why.** The service creates one output parameter per block (``<label>_output``) itself and
refuses any declared one (422): "Cannot manually create output parameters". Refer to a block's
output as ``<label>_output`` in ``parameter_keys`` or ``{{ <label>_output }}`` in templates.

**Bad**::

    parameters:
      - {parameter_type: output, key: result}

**Good**::

    blocks:
      - {block_type: extraction, label: grab, data_extraction_goal: Get the price}
      - {block_type: text_prompt, label: summarize, prompt: "Summarize {{ grab_output }}"}
"""

import sys

from .verdicts import service_verdict

CODE = "WF208"
NAME = "output-parameter-declared"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    for p in wf.params:
        if p.type == "output":
            yield wf.diag(
                rule,
                f"parameter '{p.key}' has parameter_type 'output'; output parameters are created by the "
                "service for every block and cannot be declared",
                p.path + ("parameter_type",),
                help="remove it and use '<label>_output' of the block that produces the value",
                service=service_verdict(422, "Cannot manually create output parameters", "D", 1),
            )
