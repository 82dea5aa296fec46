"""Two parameters share a key.

**What it checks.** Parameter keys are unique across all parameter types.

**Why.** The service refuses the save (422): "WorkflowDefinition has parameters with duplicate
keys". On the YAML path its sanitizer renames the second ``k`` to ``k_2`` and then rewrites
every parameter string equal to ``k``, the first key included, so the save still fails, now
naming ``k_2``.

**Bad**::

    parameters:
      - {parameter_type: workflow, key: k, workflow_parameter_type: string}
      - {parameter_type: workflow, key: k, workflow_parameter_type: string}

**Good**::

    parameters:
      - {parameter_type: workflow, key: first_name, workflow_parameter_type: string}
      - {parameter_type: workflow, key: last_name, workflow_parameter_type: string}
"""

import sys

from .verdicts import service_verdict
from .wording import original_value

CODE = "WF206"
NAME = "duplicate-parameter"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    dups = [k for k, ps in wf.param_keys.items() if len(ps) > 1]
    if not dups:
        return
    detail = (
        "WorkflowDefinition has parameters with duplicate keys. Each parameter needs to have a "
        "unique key. Duplicate key(s): " + ",".join(dups)
    )
    for key in dups:
        params = wf.param_keys[key]
        first_line = wf.span(params[0].path + ("key",))[0].line
        for p in params[1:]:
            written = original_value(wf, p.path + ("key",))
            shown = written if isinstance(written, str) else key
            extra = ""
            if wf.mode == "yaml" and shown != key:
                extra = f" (sent as yaml_definition, the service renames both to '{key}')"
            yield wf.diag(
                rule,
                f"parameter key '{shown}' is already declared at line {first_line}{extra}; the service rejects it",
                p.path + ("key",),
                help="rename or remove one of them",
                service=service_verdict(422, detail, "D", 7),
            )
