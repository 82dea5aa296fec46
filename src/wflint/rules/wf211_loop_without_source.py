"""A ``for_loop`` has nothing to loop over.

**What it checks.** A ``for_loop`` needs a ``loop_over_parameter_key`` or a non-empty
``loop_variable_reference``. The engine renders a reference as ``{{ <reference> | tojson }}``,
so plain text such as ``make_output.rows`` is an expression and iterates (observed on the real
engine). A plain-text reference whose first name (before any ``.`` or ``[``) is no known
parameter or block output is accepted by the service but finds nothing to iterate at run
time: a warning.

**Why.** The service refuses the save (422): "For loop block 'l' requires either
loop_over_parameter_key or loop_variable_reference". The plain-text case fails at run time
with "No iterable value found for the loop block".

**Bad**::

    - block_type: for_loop
      label: each_row
      loop_blocks: [...]

**Good**::

    - block_type: for_loop
      label: each_row
      loop_variable_reference: "{{ read_sheet_output.rows }}"
      loop_blocks: [...]
"""

import re
import sys

from .verdicts import e_order, service_verdict

CODE = "WF211"
NAME = "loop-without-source"
SEVERITY = "error"


def check(wf):
    rule = sys.modules[__name__]
    known = wf.known_keys
    for b in wf.blocks_of("for_loop"):
        src = b.data.get("loop_over_parameter_key")
        ref = b.data.get("loop_variable_reference")
        has_src = isinstance(src, str) and src != ""
        ref_text = ref if isinstance(ref, str) else ""
        if not has_src and not ref_text:
            detail = f"For loop block '{b.label}' requires either loop_over_parameter_key or loop_variable_reference"
            yield wf.diag(
                rule,
                f"for_loop '{b.label}' has neither loop_over_parameter_key nor loop_variable_reference; "
                "the service rejects it",
                b.path + ("label",),
                help="set loop_over_parameter_key to a parameter, or loop_variable_reference to a template",
                service=service_verdict(422, detail, "E", e_order(wf, b)),
            )
            continue
        if has_src or not ref_text:
            continue
        stripped = ref_text.replace(" ", "").strip("{}")
        head = re.split(r"[.\[]", stripped, maxsplit=1)[0]
        if "{{" in ref_text or "{%" in ref_text or stripped in known or head in known:
            continue
        yield wf.diag(
            rule,
            f"loop_variable_reference '{ref_text}' is plain text and names no parameter or block output; "
            "the loop will find nothing to iterate at run time",
            b.path + ("loop_variable_reference",),
            severity="warning",
            help="write a template such as '{{ some_block_output }}' or name a parameter",
        )
