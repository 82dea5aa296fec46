"""A value has the wrong type.

**What it checks.** Types as the service's lax reading accepts them: ``"5"`` and ``5.0``
are integers, ``"yes"``/``"off"``/``1`` are booleans, but a number is never a string and
``5.5`` is not an integer. ``web_search.num_results`` and the retry-policy numbers are strict.

**Why.** The service answers 422 ("Input should be a valid string", "... a valid integer").
A YAML 1.1 reading is the usual culprit: ``title: no`` is the boolean false, and a string
field refuses it; quote it.

**Bad**::

    - block_type: wait
      label: pause
      wait_sec: 2.5

**Good**::

    - block_type: wait
      label: pause
      wait_sec: 3
"""

import sys

from ._common import yield_findings

CODE = "WF102"
NAME = "wrong-type"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    yield from yield_findings(wf, sys.modules[__name__])
