"""``wflint diff``: review a workflow change by what it changes, not by its lines.

The steps: ``versions`` reads the two versions (two files, or the workflows changed between
two git revisions); ``changes`` checks each through the library API and compares the typed
views: ``structure`` (blocks, parameters, routing, settings, by label), ``formatting`` (what a
change that alters nothing the service reads is), ``consequences`` (findings introduced and
fixed, dangling references, test cases simulated on both versions). ``text``, ``markdown`` and
``json_format`` write the result; ``wflint graph --diff`` draws it (``wflint.graph.changes``).
"""

from __future__ import annotations

from typing import Iterable

from ..project.config import Config
from .changes import ADDED, CHANGED, FORMATTING, REMOVED, UNCHANGED, UNREADABLE, FileDiff, diff_pair, is_workflow
from .versions import Pair, Version, VersionError, from_files, from_git

FORMATS = ("text", "markdown", "json")

__all__ = ["ADDED", "CHANGED", "FORMATS", "FORMATTING", "REMOVED", "UNCHANGED", "UNREADABLE", "FileDiff", "Pair",
           "Version", "VersionError", "diff_files", "diff_git", "diff_pairs", "render"]


def diff_files(old: str, new: str, config: Config | None = None, *, run_cases: bool = True) -> list[FileDiff]:
    """The diff of two workflow files (the test file beside the new one, or the old one, is
    run on both)."""
    return [diff_pair(from_files(old, new), config, run_cases=run_cases)]


def diff_pairs(pairs: Iterable[Pair], config: Config | None = None, *, run_cases: bool = True) -> list[FileDiff]:
    """The diff of every pair whose either side is a workflow (other YAML and JSON files, a CI
    configuration say, are left out)."""
    config = config or Config()
    out = []
    for pair in pairs:
        sides = [v for v in (pair.old, pair.new) if v is not None]
        if not any(is_workflow(v, config) for v in sides):
            continue
        out.append(diff_pair(pair, config, run_cases=run_cases))
    return out


def diff_git(spec: str, paths: list[str], config: Config | None = None, *, cwd: str = ".",
             run_cases: bool = True) -> list[FileDiff]:
    """The workflows changed between two revisions (``A..B``; ``A`` alone: against the working
    tree), limited to ``paths``."""
    return diff_pairs(from_git(spec, paths, cwd), config, run_cases=run_cases)


def render(diffs: list[FileDiff], fmt: str, release: str, *, limit: int | None = None) -> str:
    if fmt == "text":
        from .text import render as text

        return text(diffs, release)
    if fmt == "markdown":
        from .markdown import GITHUB_LIMIT, render as markdown

        return markdown(diffs, release, limit or GITHUB_LIMIT)
    if fmt == "json":
        from .json_format import render as as_json

        return as_json(diffs, release)
    raise ValueError(f"unknown diff format {fmt!r}")
