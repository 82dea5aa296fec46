"""Two blocks share a label, at any nesting level.

**What it checks.** Labels are unique over the whole workflow, loop bodies included.

**Why.** Each block publishes ``<label>_output``; two blocks with one label make references
ambiguous. Sent as ``json_definition`` the service refuses the save (422): top-level
duplicates in the request model, nested ones when it converts the definition. Sent as
``yaml_definition`` its sanitizer renames the later block (``a`` → ``a_2``) and re-points
*every* ``next_block_label: a``, ``{{ a }}`` and ``{{ a_output }}`` to the renamed block,
including the ones meant for the first: the save succeeds with a different workflow. That
case is a warning.

**Bad**::

    blocks:
      - {block_type: wait, label: pause, wait_sec: 1}
      - {block_type: wait, label: pause, wait_sec: 5}

**Good**::

    blocks:
      - {block_type: wait, label: short_pause, wait_sec: 1}
      - {block_type: wait, label: long_pause, wait_sec: 5}
"""

import sys

from ..workflow.sanitizer import sanitize_name
from .verdicts import model_verdict, service_verdict
from .wording import original_value

CODE = "WF201"
NAME = "duplicate-label"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    if wf.mode == "yaml" and wf.sanitized is not None:
        yield from _yaml_renames(wf, rule)
        return
    top = {id(b) for b in wf.blocks}
    all_dups = [label for label, blocks in wf.labels.items() if len(blocks) > 1]
    d2 = (
        "WorkflowDefinition has blocks with duplicate labels. Each block needs to have a unique "
        "label. Duplicate label(s): " + ",".join(all_dups)
    )
    for label, blocks in wf.labels.items():
        if len(blocks) < 2:
            continue
        first = blocks[0]
        first_line = wf.span(first.path + ("label",))[0].line
        for b in blocks[1:]:
            nested = not (id(b) in top and id(first) in top)
            if wf.schema_only and nested:
                continue
            where = " (inside a loop)" if b.parent is not None else ""
            if nested:
                verdict = service_verdict(422, d2, "D", 2)
            else:
                verdict = model_verdict(wf, ("workflow_definition",))
            yield wf.diag(
                rule,
                f"label '{label}'{where} is already used by the {first.tag or ''} block at line {first_line}; "
                f"labels must be unique in the whole workflow",
                b.path + ("label",),
                help=f"rename it, e.g. '{label}_2', and update the references meant for it",
                service=verdict,
            )


def _yaml_renames(wf, rule):
    for b in wf.all_blocks:
        original = original_value(wf, b.path + ("label",))
        if not isinstance(original, str) or original == b.label or not original.strip():
            continue
        if sanitize_name(original, "block") != original:
            continue  # an invalid identifier: WF106 says what it becomes
        yield wf.diag(
            rule,
            f"label '{original}' is used by an earlier block; sent as yaml_definition the service "
            f"renames this block to '{b.label}' and re-points every next_block_label, "
            f"{{{{ {original} }}}} and {{{{ {original}_output }}}} in the file to it, including "
            f"those meant for the first '{original}'",
            b.path + ("label",),
            severity="warning",
            help="give each block its own label",
        )
