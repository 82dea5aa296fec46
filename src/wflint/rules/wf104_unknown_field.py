"""A key the service does not know, and drops silently.

**What it checks.** Every key of every object against the declared fields of that object:
the request, the definition, each parameter and block by its type, branches, criteria, retry
rules, browser settings. A key that belongs to another block type says which types have it;
one that a later release knows names that release.

Two keys are not dropped but refused: ``error_code`` and ``parameters`` on a ``code`` block
(the service answers 422). Those are reported as errors.

**Why.** The service ignores unknown keys without a word. A key with no near match is a
warning: it may belong to a newer release of the service, or to a tool of yours. A key that
is a near miss of a field valid at that place (``navigaton_goal``) is WF109, an error.

**Bad**::

    - block_type: navigation
      label: open_site
      navigation_goal: Open the pricing page
      owner: growth-team

**Good**::

    - block_type: navigation
      label: open_site
      navigation_goal: Open the pricing page  # owner: growth-team (a comment is kept by no one)
"""

import sys

from ..checks.service_checks import code_block_key_error
from .unknown_keys import CODE_BLOCK_REFUSED, LATER_RELEASE, NEAR_MISS, unknown_keys
from .verdicts import model_verdict
from .versions import newest_hint
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
    for found in unknown_keys(wf):
        if found.kind == NEAR_MISS:
            continue  # WF109's: a misspelt field is an error of its own
        path, key, obj = found.path, found.key, found.obj
        where = describe(wf, path)
        is_block = rel.is_block(obj)
        if found.kind == CODE_BLOCK_REFUSED:
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
        if found.kind == LATER_RELEASE:
            later = found.detail
            owner = f"a {obj.tag} field" if is_block else f"a field of {where}"
            yield wf.diag(
                rule,
                f"'{key}' is {owner} from {later}; your target is {rel.version}, which drops it silently",
                path + (key,),
                key=True,
                help=f"remove '{key}', or set target-version to {later} if your service runs it",
            )
            continue
        help_text = newest_hint(rel, "field")
        if is_block:
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
