"""Golden pictures for ``wflint graph``.

Each workflow in ``fixtures/graph/`` has siblings ``<name>.mmd`` and ``<name>.dot``: the
Mermaid and DOT text wflint draws for it (the ``v1_``/``v2_`` ones with ``--parameters``).
``python tests/graph_golden.py --update`` (re)writes them from the code; a human then reads
every changed file (and the SVG ``dot`` makes of it) before committing it.
``tests/test_graph_render.py`` compares.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "graph"
FORMATS = {"mermaid": ".mmd", "dot": ".dot"}


def fixture_files() -> list[Path]:
    return sorted(p for p in FIXTURES.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def with_parameters(path: Path) -> bool:
    return path.name.startswith(("v1_", "v2_"))


def render(path: Path, fmt: str) -> str:
    """The picture of one fixture, paths relative to the repository root."""
    from wflint.graph import pictures, render as render_picture

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        (picture,) = pictures([str(path.relative_to(ROOT))], parameters=with_parameters(path))
    finally:
        os.chdir(cwd)
    return render_picture(picture, fmt)


def expected_path(path: Path, fmt: str) -> Path:
    return path.with_suffix(FORMATS[fmt])


def main(argv: list[str]) -> int:
    from golden import refresh

    outputs = ((expected_path(f, fmt), render(f, fmt)) for f in fixture_files() for fmt in FORMATS)
    return refresh(outputs, "--update" in argv, "golden picture(s)")

if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    raise SystemExit(main(sys.argv[1:]))
