"""A key that is a near miss of a field valid at that place: a misspelt field.

**What it checks.** Every key the service does not know (see WF104) that is a near miss of a
field of the same object: a close spelling (``navigaton_goal``, ``data_schem``), or the start
or the end of exactly that field at a word boundary (``loop_over`` for
``loop_over_parameter_key``, ``blocks`` in a loop for ``loop_blocks``). A key that is a field
of another block type, or of a later release, is WF104's.

**Why.** The service saves the workflow and drops the key without a word, so the run does not
do what the file says: a navigation block runs without its goal, a loop iterates nothing, an
extraction returns no schema. It is an error though the service accepts it (the finding
carries no service status), so the default gate (``fail-level = "error"``) and the
pre-commit hook stop it. ``wflint fix --unsafe-fixes`` renames the key to the field when
there is one candidate; the language server offers the same rename as a quick fix.

**Bad**::

    - block_type: navigation
      label: open_pricing
      url: https://example.com
      navigaton_goal: Open the pricing page

**Good**::

    - block_type: navigation
      label: open_pricing
      url: https://example.com
      navigation_goal: Open the pricing page
"""

import sys

from ..checks.intent import did_you_mean, one_near_miss
from .unknown_keys import NEAR_MISS, unknown_keys
from .wording import describe

CODE = "WF109"
NAME = "misspelt-field"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    for found in unknown_keys(wf):
        if found.kind != NEAR_MISS:
            continue
        candidates = found.detail
        one = one_near_miss(found.key, candidates)
        names = [one] if one is not None else candidates
        looks = f"'{names[0]}' misspelt" if len(names) == 1 else "a misspelt field (several are close)"
        owner = "the block runs" if wf.release.is_block(found.obj) else "the workflow runs"
        yield wf.diag(
            rule,
            f"'{found.key}' in {describe(wf, found.path)} is no field: it looks like {looks}; "
            f"the service drops it silently and {owner} without it",
            found.path + (found.key,),
            key=True,
            help=did_you_mean(names),
        )
