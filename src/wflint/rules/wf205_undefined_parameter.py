"""A ``parameter_keys`` entry names no parameter or block output.

**What it checks.** Every entry of every block's ``parameter_keys`` (at any depth) must be a
declared parameter key (context parameters included) or some block's ``<label>_output``.

**Why.** The service refuses the save (422) with "Workflow definition has blocks that
reference undefined parameters". A later block's output is accepted, but is empty when the
block runs (WF403 says so).

**Bad**::

    parameters: []
    blocks:
      - {block_type: navigation, label: nav, navigation_goal: go, parameter_keys: [missing_param]}

**Good**::

    parameters:
      - {parameter_type: workflow, key: missing_param, workflow_parameter_type: string}
    blocks:
      - {block_type: navigation, label: nav, navigation_goal: go, parameter_keys: [missing_param]}
"""

import sys

from .verdicts import d8_detail, service_verdict
from .wording import Suggester

CODE = "WF205"
NAME = "undefined-parameter"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    known = wf.known_keys
    suggester = None
    detail = None
    for b in wf.all_blocks:
        keys = b.data.get("parameter_keys")
        if not isinstance(keys, list) or b.tag is None:
            continue
        from .. import model

        if b.tag in model.BLOCKS_WITHOUT_PARAMETER_KEYS:
            continue  # dropped silently by the service: WF104 reports the key
        for i, k in enumerate(keys):
            if not isinstance(k, str) or k in known:
                continue
            detail = detail or d8_detail(wf)
            suggester = suggester or Suggester(known)
            yield wf.diag(
                rule,
                f"parameter_keys entry '{k}' of block '{b.label}' names no parameter or block output; "
                "the service rejects it",
                b.path + ("parameter_keys", i),
                help=suggester.suggest(k) or "declare it under workflow_definition.parameters",
                service=service_verdict(422, detail, "D", 8),
            )
