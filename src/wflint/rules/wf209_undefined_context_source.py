"""A ``context`` parameter's ``source_parameter_key`` is not defined before it.

**What it checks.** The source of a context parameter is any non-context parameter, any
block's ``<label>_output``, or a context parameter declared *earlier* in the list.

**Why.** The service processes context parameters after all others, in list order, and
refuses an unknown source (422): "Source parameter key nope for context parameter c does not
exist."

**Bad**::

    parameters:
      - {parameter_type: context, key: c, source_parameter_key: nope}

**Good**::

    parameters:
      - {parameter_type: workflow, key: account, workflow_parameter_type: json}
      - {parameter_type: context, key: c, source_parameter_key: account}
"""

import sys
from bisect import insort

from .verdicts import service_verdict
from .wording import Suggester

CODE = "WF209"
NAME = "undefined-context-source"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    known = {p.key for p in wf.params if p.type != "context" and p.key is not None} | wf.output_keys
    context_keys = {p.key for p in wf.params if p.type == "context"}
    # kept sorted as keys are added, so a suggestion does not sort every candidate again
    suggester = Suggester(known)
    position = 0
    for p in wf.params:
        if p.type != "context":
            continue
        src = p.data.get("source_parameter_key")
        if isinstance(src, str) and src not in known:
            later = src in context_keys
            msg = (
                f"context parameter '{p.key}' reads '{src}', which is a context parameter declared after it"
                if later
                else f"context parameter '{p.key}' reads '{src}', which is no parameter or block output"
            )
            detail = f"Source parameter key {src} for context parameter {p.key} does not exist."
            yield wf.diag(
                rule,
                msg + "; the service rejects it",
                p.path + ("source_parameter_key",),
                help="move it below its source" if later else suggester.suggest(src),
                service=service_verdict(422, detail, "D", 6, position),
            )
        position += 1
        if p.key is not None and p.key not in known:
            known.add(p.key)
            insort(suggester.pool, p.key)
