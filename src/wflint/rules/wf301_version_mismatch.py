"""``version`` is below 2 but the definition routes blocks explicitly.

**What it checks.** A definition "uses v2 constructs" when a top-level block is a
``conditional`` or has a ``next_block_label`` (loop bodies are not looked at). With an
explicit ``version`` below 2 that is a contradiction: v1 runs the top-level blocks in list
order and has no routing.

**Why.** The service refuses the save (422, request model): "workflow_definition.version must
be 2 or greater when using conditional blocks or explicit next_block_label routing." Leave
``version`` out and the service infers 2 by itself.

**Bad**::

    workflow_definition:
      version: 1
      blocks:
        - {block_type: goto_url, label: open, url: "https://example.com", next_block_label: pause}
        - {block_type: wait, label: pause, wait_sec: 2}

**Good**::

    workflow_definition:
      version: 2
      blocks:
        - {block_type: goto_url, label: open, url: "https://example.com", next_block_label: pause}
        - {block_type: wait, label: pause, wait_sec: 2}
"""

import sys

from ..checks.service_checks import infer_definition_version
from ..model.lax import lax_int
from .verdicts import model_verdict

CODE = "WF301"
NAME = "version-mismatch"
SEVERITY = "error"
STAGE = "model"


def _explicit_version(value):
    """The integer the request model reads from ``version`` (lax), or None."""
    return None if value is None else lax_int(value)


def check(wf):
    rule = sys.modules[__name__]
    d = wf.definition
    if d is None or "version" not in d or not wf.release.has_check("version_inference"):
        return  # releases before 1.0.44 accept any version and route by next_block_label
    version = _explicit_version(d.get("version"))
    if version is None:
        return
    top = [(b.tag or "", b.data.get("next_block_label")) for b in wf.blocks]
    _, error = infer_definition_version(version, top)
    if error is None:
        return
    reasons = [f"'{b.label}' is a conditional" for b in wf.blocks if b.tag == "conditional"]
    reasons += [f"'{b.label}' has next_block_label '{b.data['next_block_label']}'"
                for b in wf.blocks if b.tag != "conditional" and b.data.get("next_block_label") is not None]
    shown = "; ".join(reasons[:3]) + (f"; and {len(reasons) - 3} more" if len(reasons) > 3 else "")
    yield wf.diag(
        rule,
        f"version {version} means blocks run in list order, but the definition routes them explicitly "
        f"(block {shown}); the service rejects it: {error}",
        ("workflow_definition", "version"),
        help="remove version (the service then infers 2) or set version: 2; in v2 every block except "
             "the last must name its next_block_label",
        service=model_verdict(wf, ("workflow_definition",)),
    )
