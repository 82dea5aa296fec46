"""``loop_over_parameter_key`` names no parameter or block output.

**What it checks.** A non-empty ``loop_over_parameter_key`` of a ``for_loop`` must be a
declared parameter key (context parameters included) or some block's ``<label>_output``.

**Why.** The service refuses the save (422) with "Workflow definition has blocks that
reference undefined parameters" (older releases crash with a 500). On the YAML path the
sanitizer does not rewrite this field, so a loop over a renamed key breaks.

**Bad**::

    - block_type: for_loop
      label: each_url
      loop_over_parameter_key: urls
      loop_blocks: [...]

**Good**::

    parameters:
      - {parameter_type: workflow, key: urls, workflow_parameter_type: json}
"""

import sys

from .verdicts import d8_detail, e_order, service_verdict
from .wording import Suggester

CODE = "WF210"
NAME = "undefined-loop-source"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    known = wf.known_keys
    renamed = wf.sanitized.key_map if wf.sanitized is not None else {}
    suggester = None
    for b in wf.blocks_of("for_loop"):
        src = b.data.get("loop_over_parameter_key")
        if not isinstance(src, str) or not src or src in known:
            continue
        suggester = suggester or Suggester(known)
        hint = suggester.suggest(src)
        if src in renamed:
            hint = f"the service renamed parameter '{src}' to '{renamed[src]}' but does not rewrite loop_over_parameter_key; use '{renamed[src]}'"
        yield wf.diag(
            rule,
            f"for_loop '{b.label}' loops over '{src}', which is no parameter or block output; the service rejects it",
            b.path + ("loop_over_parameter_key",),
            help=hint,
            service=(service_verdict(422, d8_detail(wf), "D", 8) if wf.release.has_check("d8_loop_source")
                     else service_verdict(500, None, "E", e_order(wf, b))),
        )
