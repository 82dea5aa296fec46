"""A ``for_loop`` has nothing to loop over.

**What it checks.** A ``for_loop`` needs a ``loop_over_parameter_key`` or a non-empty
``loop_variable_reference``.

**What the engine does with a reference.** It renders it as ``{{ <reference> | tojson }}``, so
plain text such as ``make_output.rows`` is an expression and iterates. When that finds nothing
and the text does not hold ``extracted_information.``, the engine reads the text as a
description in plain language ("the order numbers listed on the page", as the service's
documentation writes it): it runs an extraction on the open page for those values and iterates
them (``ForLoopBlock._get_values_from_loop_variable_reference``, every release; observed on the
real 1.0.56 engine). Such a reference is fine and not reported.

Two plain-text references are reported as warnings: one written like a name or path
(``extract_ouptut.rows``) whose first name is no parameter or block output, which is most
likely a typo, and which the engine would send to the page as an extraction goal; and one
that holds ``extracted_information.`` under an unknown name, for which the engine skips the
extraction and finds nothing to iterate ("No iterable value found for the loop block").

**Why.** The service refuses the save (422): "For loop block 'l' requires either
loop_over_parameter_key or loop_variable_reference".

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
        if "extracted_information." in ref_text:
            message = (f"loop_variable_reference '{ref_text}' names no parameter or block output; the engine "
                       "does not extract a reference that holds 'extracted_information.', so the loop will "
                       "find nothing to iterate at run time")
        elif _NAME_PATH.fullmatch(ref_text.strip(" {}")):
            message = (f"loop_variable_reference '{ref_text}' is written like a name but '{head}' is no parameter "
                       "or block output; the engine will read it as a plain-language description and extract "
                       "values for it from the page")
        else:
            continue  # plain language: the engine extracts the values from the page
        yield wf.diag(
            rule,
            message,
            b.path + ("loop_variable_reference",),
            severity="warning",
            help="write a template such as '{{ some_block_output }}', name a parameter, or describe the "
                 "values in words",
        )


#: a name, then attributes or items: ``make_output.rows``, ``rows[0].id``
_NAME_PATH = re.compile(r"[A-Za-z_]\w*(?:\.\w+|\[[^\]]*\])*")
