"""A parameter key is reserved, or equals some ``<label>_output``.

**What it checks.** A declared parameter key may not be ``<label>_output`` of any block
(nested ones included), nor one of the run-time names ``current_item``, ``current_value``,
``current_index``, ``current_date``, ``workflow_title``, ``workflow_id``,
``workflow_permanent_id``, ``workflow_run_id``, ``workflow_run_outputs``,
``workflow_run_summary``. A key equal to a bare block label is accepted by the service but
shares the template name with the block's metadata, so one hides the other: a warning.

**Why.** The service refuses reserved keys (422): "WorkflowDefinition has parameters with
reserved keys".

**Bad**::

    parameters:
      - {parameter_type: workflow, key: a_output, workflow_parameter_type: string}
    blocks:
      - {block_type: wait, label: a, wait_sec: 1}

**Good**::

    parameters:
      - {parameter_type: workflow, key: a_input, workflow_parameter_type: string}
"""

import sys

from .. import model
from .verdicts import service_verdict

CODE = "WF207"
NAME = "reserved-parameter-key"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    all_keys = ",".join(p.key for p in wf.params if p.key is not None)
    outputs = [f"{b.label}_output" for b in wf.all_blocks if b.label is not None]
    d3 = (
        "WorkflowDefinition has parameters with reserved keys. User created parameters cannot have "
        f"the following reserved keys: {','.join(outputs)}. Parameter keys: {all_keys}"
    )
    d4 = (
        "WorkflowDefinition has parameters with reserved keys. User created parameters cannot have "
        f"the following reserved keys: {','.join(model.RESERVED_PARAMETER_KEYS)}. Parameter keys: {all_keys}"
    )
    for p in wf.params:
        key = p.key
        if key is None:
            continue
        where = p.path + ("key",)
        if key in outputs:
            yield wf.diag(
                rule,
                f"parameter key '{key}' is reserved: it is the output of block '{key[: -len('_output')]}'; "
                "the service rejects it",
                where,
                help="choose another key",
                service=service_verdict(422, d3, "D", 3),
            )
        elif key in model.RESERVED_PARAMETER_KEYS:
            yield wf.diag(
                rule,
                f"parameter key '{key}' is reserved for a run-time value; the service rejects it",
                where,
                help="choose another key",
                service=service_verdict(422, d4, "D", 4),
            )
        elif key in wf.labels:
            yield wf.diag(
                rule,
                f"parameter key '{key}' equals a block label: in templates '{key}' then means either the "
                "parameter or the block's metadata, and one hides the other",
                where,
                severity="warning",
                help="give the parameter or the block another name",
            )
