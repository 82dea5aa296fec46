"""Golden files for rule fixtures.

Each fixture ``fixtures/rules/<CODE>/<bad|ok>_<case>.(yaml|yml|json)`` has a sibling
``<file>.expected`` holding wflint's concise output for it, paths relative to the repository
root. ``python tests/golden.py --update`` (re)writes them from the code; a human then reads
every changed file before committing it. ``tests/test_golden.py`` compares.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "rules"
SUFFIXES = (".yaml", ".yml", ".json")


def fixture_files() -> list[Path]:
    # a symbolic link is a fixture too (WF006's dangling link); it has no suffix, so the tests
    # that read every fixture file as a workflow never meet it
    return sorted(p for p in FIXTURES.rglob("*")
                  if (p.suffix in SUFFIXES or p.is_symlink()) and p.name.startswith(("bad_", "ok_")))


def render(path: Path) -> str:
    """The concise output for one fixture, as the golden file holds it."""
    from wflint.api import check_file
    from wflint.project.config import Config
    from wflint.report.formats import concise

    rel = path.relative_to(ROOT)
    cwd = os.getcwd()
    os.chdir(ROOT)  # relative paths in the output, whatever the caller's directory
    try:
        diags = check_file(rel, Config())
    finally:
        os.chdir(cwd)
    return concise.render(diags or [])


def expected_path(path: Path) -> Path:
    return path.with_name(path.name + ".expected")


def refresh(outputs, update: bool, noun: str) -> int:
    """Compare each (expected file, text the code produces) pair; with ``update``, write the
    ones that differ. Prints what differs; the exit status is 1 when something differs and
    was not written."""
    changed = 0
    for exp, text in outputs:
        old = exp.read_text(encoding="utf-8") if exp.exists() else None
        if old != text:
            changed += 1
            print(("updated " if update else "differs ") + str(exp.relative_to(ROOT)))
            if update:
                exp.write_text(text, encoding="utf-8")
    print(f"{changed} {noun} {'updated' if update else 'differ'}")
    return 0 if update or not changed else 1


def main(argv: list[str]) -> int:
    return refresh(((expected_path(f), render(f)) for f in fixture_files()), "--update" in argv, "golden file(s)")


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main(sys.argv[1:]))
