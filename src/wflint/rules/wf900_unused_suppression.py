"""A suppression comment that suppressed nothing.

**What it checks.** Every ``# wflint: disable=...`` or ``# wflint: disable-file=...`` comment
must silence at least one diagnostic for each rule it names.

**Why.** Suppressions outlive the problems they hid; a stale one would silently hide the next
real problem on that line.

**Bad**::

    label: pause  # wflint: disable=WF106   (the label is valid)

**Good**::

    label: pause
"""

CODE = "WF900"
NAME = "unused-suppression"
SEVERITY = "warning"
PRODUCED_BY = "the suppression pass"
check = None
