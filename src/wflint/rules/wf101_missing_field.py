"""A required field is absent.

**What it checks.** Every object against its declaration: the request needs ``title`` and
``workflow_definition``; the definition needs ``parameters`` and ``blocks`` (both may be
``[]``); every block needs ``label`` and, at the top level, ``block_type``; each type its own
required fields (``navigation_goal`` for navigation, ``prompt`` for text_prompt, ``url`` for
goto_url ...). The position is the mapping that lacks the field.

**Why.** The service answers 422 "Field required".

**Bad**::

    - block_type: navigation
      label: open_site
      url: https://example.com

**Good**::

    - block_type: navigation
      label: open_site
      url: https://example.com
      navigation_goal: Open the pricing page
"""

import sys

from .model_findings import yield_findings

CODE = "WF101"
NAME = "missing-field"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    yield from yield_findings(wf, sys.modules[__name__])
