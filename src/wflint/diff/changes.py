"""One workflow file's diff: its two versions read through the library API (the one check
``wflint check`` makes, at the target release), compared by structure, then by consequences."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import yaml

from ..api import Inspection, inspect_bytes
from ..project.config import Config
from ..core.diagnostics import Diagnostic
from ..simulate.loading import LoadedWorkflow, LoadError
from ..simulate.suite import test_cases
from ..workflow.view import Workflow
from . import formatting
from .consequences import CaseChange, Dangling, case_changes, dangling, findings_delta
from .structure import Structure, compare
from .versions import Pair, Version

#: a file's verdict
CHANGED, FORMATTING, UNCHANGED, ADDED, REMOVED, UNREADABLE = (
    "changed", "formatting only", "unchanged", "added", "removed", "not comparable")


@dataclass
class FileDiff:
    old_path: str | None
    new_path: str | None
    status: str
    #: the kinds of formatting change (``formatting.WORDS``), with or without real changes
    formatting: list[str] = field(default_factory=list)
    structure: Structure | None = None
    introduced: list[Diagnostic] = field(default_factory=list)
    fixed: list[Diagnostic] = field(default_factory=list)
    dangling: list[Dangling] = field(default_factory=list)
    #: the test file whose cases were run on both versions
    test_file: str | None = None
    cases: list[CaseChange] = field(default_factory=list)
    #: why the versions could not be compared, or why the cases could not run
    problems: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or "?"

    @property
    def changed_cases(self) -> list[CaseChange]:
        return [c for c in self.cases if c.changed]

    @property
    def tested_path_changed(self) -> bool:
        """A test case now runs another path or ends in another status (``--exit-code``)."""
        return any(c.path_changed or c.status_changed for c in self.cases)


def _workflow(inspection: Inspection | None) -> Workflow | None:
    if inspection is None:
        return None
    return next((wf for wf in inspection.workflows if not wf.schema_only), None)


def _why_not(inspection: Inspection | None, path: str) -> str:
    if inspection is None:
        return f"{path}: not a workflow"
    errors = [d for d in inspection.diagnostics if d.severity == "error"] or inspection.diagnostics
    if errors:
        d = errors[0]
        return f"{path}:{d.line}:{d.column}: {d.code} {d.message}"
    return f"{path}: holds no workflow"


def _loaded(path: str, wf: Workflow, inspection: Inspection) -> LoadedWorkflow:
    # sent as yaml_definition, the service stores and runs the sanitized request
    request = wf.sanitized.request if wf.sanitized is not None else wf.request
    return LoadedWorkflow(path, request, [d for d in inspection.diagnostics if d.severity == "error"])


def is_workflow(version: Version, config: Config) -> bool:
    return inspect_bytes(version.data, version.path, config, require_workflow=True) is not None


def diff_pair(pair: Pair, config: Config | None = None, *, run_cases: bool = True) -> FileDiff:
    config = config or Config()
    old_i = inspect_bytes(pair.old.data, pair.old.path, config) if pair.old is not None else None
    new_i = inspect_bytes(pair.new.data, pair.new.path, config) if pair.new is not None else None
    old_wf, new_wf = _workflow(old_i), _workflow(new_i)
    out = FileDiff(pair.old.path if pair.old else None, pair.new.path if pair.new else None, UNCHANGED)
    out.introduced, out.fixed = findings_delta(old_i.diagnostics if old_i else [], new_i.diagnostics if new_i else [])

    if pair.old is None:
        out.status = ADDED
    elif pair.new is None:
        out.status = REMOVED
    elif old_wf is None or new_wf is None:
        out.status = UNREADABLE
        out.problems += [_why_not(i, v.path) for i, v, wf in ((old_i, pair.old, old_wf), (new_i, pair.new, new_wf))
                         if wf is None]
    else:
        out.structure = compare(old_wf, new_wf)
        old_text = old_wf.source.text if old_wf.source is not None else pair.old.data.decode("utf-8", "replace")
        new_text = new_wf.source.text if new_wf.source is not None else pair.new.data.decode("utf-8", "replace")
        if old_text != new_text:
            out.formatting = formatting.kinds(old_text, new_text, old_wf.root, new_wf.root, old_wf.request, new_wf.request)
        names = {a: b for a, b in {**out.structure.renames, **out.structure.param_renames}.items() if a != b}
        if names:
            out.introduced, out.fixed = findings_delta(old_i.diagnostics, new_i.diagnostics, names)
        if not out.structure.empty:
            out.status = CHANGED
            # with real changes, values that differ are those changes, not another spelling
            out.formatting = [k for k in out.formatting if k not in (formatting.SPELLING, formatting.LAYOUT)]
            out.dangling = dangling(old_wf, new_wf, out.structure)
        elif out.formatting:
            out.status = FORMATTING
    if run_cases and pair.test is not None and out.status not in (UNCHANGED, FORMATTING):
        _cases(out, pair, (old_i, old_wf), (new_i, new_wf))
    return out


def _cases(out: FileDiff, pair: Pair, old: tuple, new: tuple) -> None:
    test = pair.test
    assert test is not None
    out.test_file = test.path
    try:
        cases, network = test_cases(_test_data(test), test.path)
    except LoadError as exc:
        out.problems.append(str(exc))
        return
    loaded = []
    for (inspection, wf), version in ((old, pair.old), (new, pair.new)):
        loaded.append(_loaded(version.path, wf, inspection) if wf is not None and version is not None else None)
    out.cases = case_changes(loaded[0], loaded[1], cases, network, out.structure.renames if out.structure else None)


def _test_data(test: Version) -> Any:
    try:
        text = test.data.decode("utf-8")
        if PurePosixPath(test.path).suffix.lower() == ".json":
            return json.loads(text)
        return yaml.safe_load(text)
    except (UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        raise LoadError(f"{test.path}: not a readable test file: {exc}") from None
