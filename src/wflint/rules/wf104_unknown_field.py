"""A key the service does not know, and drops silently.

**What it checks.** Every key of every object against the declared fields of that object:
the request, the definition, each parameter and block by its type, branches, criteria, retry
rules, browser settings. A misspelt key gets the closest real field as a suggestion; a key
that belongs to another block type says which types have it.

Two keys are not dropped but refused: ``error_code`` and ``parameters`` on a ``code`` block
(the service answers 422). Those are reported as errors.

**Why.** The service ignores unknown keys without a word, so ``navigaton_goal`` leaves the
block with no goal at all and the run does something else than intended.

**Bad**::

    - block_type: navigation
      label: open_site
      navigaton_goal: Open the pricing page

**Good**::

    - block_type: navigation
      label: open_site
      navigation_goal: Open the pricing page
"""

import difflib
import sys

from .. import model
from ..checks.service_checks import code_block_key_error
from ..workflow.view import modeled_objects
from .verdicts import model_verdict
from .wording import describe

CODE = "WF104"
NAME = "unknown-field"
SEVERITY = "warning"
STAGE = "model"


def _owners(key: str) -> list[str]:
    return [tag for tag in model.BLOCK_TYPES if model.BLOCK_TYPES[tag].field(key) is not None]


def check(wf):
    rule = sys.modules[__name__]
    for path, data, obj in modeled_objects(wf):
        known = model.known_keys(obj)
        is_block = obj.tag is not None and model.BLOCK_TYPES.get(obj.tag) is obj
        for key in data:
            if not isinstance(key, str) or key in known:
                continue
            where = describe(wf, path)
            if is_block and obj.tag == "code" and key in ("error_code", "parameters"):
                detail = code_block_key_error([key])
                yield wf.diag(
                    rule,
                    f"code blocks refuse '{key}': {detail}",
                    path + (key,),
                    key=True,
                    severity="error",
                    help="use 'error_code_mapping'" if key == "error_code" else "use 'parameter_keys'",
                    service=model_verdict(wf, path + (key,)),
                )
                continue
            close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
            help_text = f"did you mean '{close[0]}'?" if close else None
            if is_block and not close:
                owners = [t for t in _owners(key) if t != obj.tag]
                if owners:
                    shown = ", ".join(owners[:5]) + (", ..." if len(owners) > 5 else "")
                    help_text = f"'{key}' is a field of {shown} blocks, not of {obj.tag} blocks"
            yield wf.diag(
                rule,
                f"unknown field '{key}' in {where}; the service drops it silently",
                path + (key,),
                key=True,
                help=help_text,
            )
