"""``wflint graph --coverage``: the blocks and branches no test case exercised, drawn in pink.

The cases are those of each workflow's test file (``NAME.test.yaml`` beside ``NAME.yaml``),
run as ``wflint test`` runs them; a workflow without one has nothing tested.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..simulate.suite import run_suite, test_file_for
from . import drawing as d

if TYPE_CHECKING:
    from . import Picture


def mark(pictures: list["Picture"], *, network: bool = False) -> None:
    test_files = sorted({str(t) for p in pictures if (t := test_file_for(Path(p.path))) is not None})
    suite = run_suite(test_files, network=network) if test_files else None
    by_path = {Path(k).resolve(): (k, cov) for k, cov in (suite.coverage if suite else {}).items()}
    for picture in pictures:
        if picture.drawing is None:
            continue
        key, cov = by_path.get(Path(picture.path).resolve(), ("", None))
        hit_blocks = cov.hit_blocks if cov else set()
        hit_branches = cov.hit_branches if cov else set()
        drawing = picture.drawing
        for node in drawing.nodes.values():
            if node.kind == d.BLOCK and node.lines and node.lines[0] not in hit_blocks:
                node.untested = True
        for edge in drawing.edges:
            source = drawing.nodes.get(edge.source)
            if edge.branch_index is not None and source is not None and (source.lines[0], edge.branch_index) not in hit_branches:
                edge.untested = True
        if cov is None:
            drawing.notes.append("coverage: no test cases for this workflow (NAME.test.yaml beside it)")
        else:
            c = cov.counts()
            failed = [case.name for case in suite.cases if case.workflow == key and not case.passed] if suite else []
            drawing.notes.append(f"coverage: blocks {c['blocks_hit']}/{c['blocks']}, branches {c['branches_hit']}/"
                                 f"{c['branches']} over {cov.cases} case{'s' if cov.cases != 1 else ''}"
                                 + (f"; failing: {', '.join(failed)}" if failed else ""))

