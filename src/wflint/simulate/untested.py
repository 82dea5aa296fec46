"""The workflows no test file tests: found as ``wflint check`` finds workflows (the same walk,
``.gitignore`` and the configuration's excludes), recognised by their content."""

from __future__ import annotations

from pathlib import Path

from ..project.config import Config
from ..project.discovery import discover
from ..document.parse import parse
from ..document.source import decode
from ..workflow.recognize import recognize
from .coverage import Coverage
from .loading import LoadError, load_workflow


def untested_workflows(paths: list[str], tested: set[Path]) -> dict[str, Coverage]:
    """Each workflow file under the directories of ``paths`` that is not in ``tested``, with its
    blocks and branches to cover (none hit)."""
    found: dict[str, Coverage] = {}
    try:
        candidates = discover([p for p in paths if Path(p).is_dir()], Config()).candidates
    except FileNotFoundError:
        return found
    for candidate in candidates:
        name = candidate.path.name.lower()
        if name.endswith((".test.yaml", ".test.yml", ".test.json")) or candidate.path.resolve() in tested:
            continue
        try:
            source, _ = decode(candidate.path.read_bytes(), candidate.shown)
        except OSError:
            continue
        if source is None:
            continue
        result = parse(source)
        if not recognize(result.root, source.text).is_workflow:
            continue
        try:
            request = load_workflow(candidate.path).request
        except LoadError:
            continue
        found[candidate.shown] = Coverage.of(request)
    return found
