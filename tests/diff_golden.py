"""Golden files for ``wflint diff``: ``fixtures/diff/orders.CHANGE.yaml`` against
``orders.yaml``, in text and markdown, paths relative to the repository root.

``python tests/diff_golden.py --update`` (re)writes ``fixtures/diff/golden/CHANGE.txt`` and
``CHANGE.md`` from the code; a human then reads every changed file before committing it.
``tests/test_diff.py`` compares.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIFF = ROOT / "fixtures" / "diff"
GOLDEN = DIFF / "golden"
CHANGES = ("branch", "removed_output", "reroute", "renamed", "prompt", "reflowed", "combined")
FORMATS = {"text": ".txt", "markdown": ".md"}


def render(change: str, fmt: str) -> str:
    from wflint.diff import diff_files, render as as_text

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        diffs = diff_files("fixtures/diff/orders.yaml", f"fixtures/diff/orders.{change}.yaml")
    finally:
        os.chdir(here)
    return as_text(diffs, fmt, "1.0.56")


def expected_path(change: str, fmt: str) -> Path:
    return GOLDEN / f"{change}{FORMATS[fmt]}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/diff_golden.py --update")
    GOLDEN.mkdir(exist_ok=True)
    for change in CHANGES:
        for fmt in FORMATS:
            expected_path(change, fmt).write_text(render(change, fmt), encoding="utf-8")
            print("wrote", expected_path(change, fmt).relative_to(ROOT))
