"""``finally_block_label`` names no top-level block.

**What it checks.** The definition's ``finally_block_label``, when set, is the label of a
block at the top level (not inside a loop).

**Why.** The service refuses the save (422): "finally_block_label 'cleanup' does not
reference a valid block. Available labels: a".

**Bad**::

    workflow_definition:
      finally_block_label: cleanup
      blocks:
        - {block_type: wait, label: a, wait_sec: 1}

**Good**::

    workflow_definition:
      finally_block_label: cleanup
      blocks:
        - {block_type: wait, label: a, wait_sec: 1}
        - {block_type: http_request, label: cleanup, url: "https://example.com/done"}
"""

import sys

from ..checks.service_checks import finally_label_error
from .verdicts import model_verdict
from .wording import suggest, top_labels

CODE = "WF203"
NAME = "unknown-finally-block"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    fin = wf.finally_label
    if fin is None:
        return
    labels = top_labels(wf)
    if finally_label_error(fin, labels) is None:
        return
    path = ("workflow_definition", "finally_block_label")
    nested = wf.labels.get(fin)
    if nested:
        msg = f"finally_block_label '{fin}' names a block inside a loop; it must name a top-level block"
        hint = "move the block to the top level"
    else:
        msg = f"finally_block_label '{fin}' names no block"
        hint = suggest(fin, labels)
    yield wf.diag(rule, msg + "; the service rejects it", path, help=hint, service=model_verdict(wf, ("workflow_definition",)))
