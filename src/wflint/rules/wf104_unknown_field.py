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

from ..checks.service_checks import code_block_key_error
from ..workflow.view import modeled_objects
from .verdicts import model_verdict
from .versions import field_from_later_release, newest_hint
from .wording import describe

CODE = "WF104"
NAME = "unknown-field"
SEVERITY = "warning"
STAGE = "model"


def _owners(rel, key: str) -> list[str]:
    return [tag for tag in rel.BLOCK_TYPES if rel.BLOCK_TYPES[tag].field(key) is not None]


def check(wf):
    rule = sys.modules[__name__]
    rel = wf.release
    for path, data, obj in modeled_objects(wf):
        known = rel.known_keys(obj)
        is_block = rel.is_block(obj)
        for key in data:
            if not isinstance(key, str) or key in known:
                continue
            where = describe(wf, path)
            if is_block and obj.tag == "code" and (
                    key == "parameters" or (key == "error_code" and rel.has_check("code_block_forbidden_keys"))):
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
            later = field_from_later_release(rel, obj, key)
            if later is not None:
                owner = f"a {obj.tag} field" if is_block else f"a field of {where}"
                yield wf.diag(
                    rule,
                    f"'{key}' is {owner} from {later}; your target is {rel.version}, which drops it silently",
                    path + (key,),
                    key=True,
                    help=f"remove '{key}', or set target-version to {later} if your service runs it",
                )
                continue
            close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.75)
            help_text = f"did you mean '{close[0]}'?" if close else None
            if not close:
                help_text = newest_hint(rel, "field")
            if is_block and not close:
                owners = [t for t in _owners(rel, key) if t != obj.tag]
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
