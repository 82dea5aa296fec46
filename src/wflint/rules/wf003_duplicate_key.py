"""A mapping repeats a key.

**What it checks.** Every mapping, at any depth, in YAML and in JSON.

**Why.** Both parsers the service uses keep the *last* value silently, so the first one is
lost without a word: a classic source of "but I set that!" bugs.

**Bad**::

    - block_type: wait
      label: pause
      wait_sec: 5
      wait_sec: 50

**Good**::

    - block_type: wait
      label: pause
      wait_sec: 50
"""

CODE = "WF003"
NAME = "duplicate-key"
SEVERITY = "error"
PRODUCED_BY = "the parser"
check = None
