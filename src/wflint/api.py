"""The library API. The CLI and the mock server are thin layers over these functions.

    >>> from wflint import check_text
    >>> diags = check_text(open("flow.yaml").read(), path="flow.yaml")

``check_paths`` checks the files ``wflint.project.discovery`` finds under files and directories: every
file named, and every file met in a walk whose content is a workflow
(``wflint.workflow.recognize``); ``check_text``, ``check_bytes`` and
``check_file`` check what they are given as a workflow. ``evaluate`` checks a request that
arrives as plain data (the mock server's case) and reports the service's verdict next to the
diagnostics.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .workflow import unwrap
from .report import suppressions
from .workflow import view
from .workflow.recognize import recognize
from .project.config import Config
from .core.diagnostics import Diagnostic, Pos, ServiceVerdict, finalize, make
from .project.discovery import (
    MAX_FILE_BYTES,
    Candidate,
    Globs,
    TooLarge,
    base_dir,
    discover,
    read_limited,
    unreadable_reason,
)
from .document.parse import collector_paused, format_from_path, parse
from .core.records import MutableRecord, assign, fresh, replace
from .rules import Rule, matches, registry
from .document.source import SourceFile, decode

__all__ = ["MAX_FILE_BYTES", "InternalError", "Report", "check_bytes", "check_file", "check_paths",
           "check_source", "check_text", "evaluate", "inspect_bytes", "inspect_file", "iter_files"]


class InternalError(Exception):
    """A bug in wflint (a rule crashed): the CLI exits with status 3."""


class Report(MutableRecord):
    def __init__(
        self,
        diagnostics: list[Diagnostic] = fresh(list),
        #: files checked as workflows, as shown
        checked: list[str] = fresh(list),
        #: (path, reason) for every file read or met and not checked
        skipped: list[tuple[str, str]] = fresh(list),
        #: why each checked file was taken as a workflow (path -> reason), for --show-files
        reasons: dict[str, str] = fresh(dict),
    ) -> None:
        assign(self, locals())

    @property
    def files_checked(self) -> int:
        return len(self.checked)

    @property
    def files_skipped(self) -> int:
        return len(self.skipped)

    def add(self, shown: str, result: FileResult) -> None:
        """One file's outcome: checked (with its findings), or skipped (with a WF006 when it
        could not be read)."""
        if result.diagnostics is None or not result.read:
            self.skipped.append((shown, result.reason))
            self.diagnostics.extend(result.diagnostics or [])
            return
        self.checked.append(shown)
        self.reasons[shown] = result.reason
        self.diagnostics.extend(result.diagnostics)


_ACTIVE: dict[tuple[tuple[str, ...], tuple[str, ...]], list[Rule]] = {}


def active_rules(config: Config) -> list[Rule]:
    """The rules ``config`` selects, worked out once per selection (not once per file)."""
    key = (tuple(config.select), tuple(config.ignore))
    rules = _ACTIVE.get(key)
    if rules is None:
        rules = _ACTIVE[key] = [r for r in registry().values() if _enabled(config, r.code, r.name)]
    return list(rules)


def _enabled(config: Config, code: str, name: str) -> bool:
    if not any(matches(s, code, name) for s in config.select):
        return False
    return not any(matches(s, code, name) for s in config.ignore)


def run_rules(wf: view.Workflow, rules: Iterable[Rule]) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for rule in rules:
        if rule.check is None:
            continue
        if wf.schema_only and getattr(rule.module, "STAGE", "lint") != "model":
            continue
        try:
            out.extend(rule.check(wf))
        except Exception as exc:  # a rule bug must not look like a finding
            raise InternalError(f"rule {rule.code} ({rule.name}) failed on {wf.path}: {type(exc).__name__}: {exc}") from exc
    return out


def _postprocess(source: SourceFile | None, diags: list[Diagnostic], config: Config) -> list[Diagnostic]:
    from .rules import wf900_unused_suppression as wf900

    kept = []
    for d in diags:
        if not _enabled(config, d.code, d.name):
            continue
        sev = config.severity.get(d.code) or config.severity.get(d.name)
        kept.append(replace(d, severity=sev) if sev else d)
    if source is not None:
        unused = wf900 if _enabled(config, wf900.CODE, wf900.NAME) else None
        kept = suppressions.apply(source, kept, unused)
    return finalize(kept)


class FileResult(MutableRecord):
    """One file's outcome: its diagnostics, or None when it is not a workflow; ``reason``
    says why it was (or was not) taken as one."""

    def __init__(self, diagnostics: list[Diagnostic] | None, reason: str,
                 #: False when the file could not be read (its diagnostics are then its WF006)
                 read: bool = True) -> None:
        assign(self, locals())


def _check(source: SourceFile, config: Config, fmt: str | None, require_workflow: bool,
           views: list[view.Workflow] | None = None) -> FileResult:
    """The one check of a decoded file. ``views``, when given, receives the workflow views the
    rules read (for tools that draw a workflow rather than list its problems)."""
    with collector_paused():
        return _check_paused(source, config, fmt, require_workflow, views)


def _check_paused(source: SourceFile, config: Config, fmt: str | None, require_workflow: bool,
                  views: list[view.Workflow] | None) -> FileResult:
    parsed = parse(source, fmt, config.limits)
    root = parsed.root
    recognition = recognize(root, source.text)
    if require_workflow and not recognition.is_workflow:
        return FileResult(None, recognition.reason)
    chosen = parsed.format if config.mode == "auto" else config.mode
    diags = [unwrap.with_document_verdict(d, root, chosen, source.text, config.target_version) for d in parsed.diagnostics]
    if root is not None and root.kind == "map":
        # recognition asked whether a mapping is a stored form; unwrapping needs the answer again
        unwrapped = unwrap.unwrap(source, root, parsed.format, config.mode, config.target_version, config.limits,
                                  stored=recognition.kind == "stored")
        diags.extend(unwrapped.diagnostics)
        rules = active_rules(config)
        for wf in unwrapped.workflows:
            diags.extend(d for d in run_rules(wf, rules) if unwrapped.keep(d))
        if views is not None:
            views.extend(unwrapped.workflows)
    reason = recognition.reason if recognition.is_workflow else "checked as a workflow because it was asked for"
    return FileResult(_postprocess(source, diags, config), reason)


def check_source(
    source: SourceFile, config: Config | None = None, fmt: str | None = None, *, require_workflow: bool = False
) -> list[Diagnostic] | None:
    """Check one decoded file. With ``require_workflow``, a file whose content is not a
    workflow (see ``wflint.workflow.recognize``) gives None instead of findings."""
    return _check(source, config or Config(), fmt, require_workflow).diagnostics


def _check_data(data: bytes, path: str, config: Config, fmt: str | None, require_workflow: bool,
                views: list[view.Workflow] | None = None) -> FileResult:
    if len(data) > config.limits.file_bytes:
        return FileResult(_postprocess(None, [too_large(path, config.limits.file_bytes, len(data))], config),
                          "too large to read", False)
    source, diags = decode(data, path)
    if source is None:
        if require_workflow:
            return FileResult(None, "not a workflow: not text (" + (diags[0].message if diags else "undecodable") + ")")
        # the service refuses such bytes as it refuses any file that does not parse (422): a
        # YAML file's yaml_definition does not load, a JSON file's body is no JSON
        sent_as = config.mode if config.mode != "auto" else (fmt or format_from_path(path) or "yaml")
        diags = [unwrap.with_document_verdict(d, None, sent_as, "") for d in diags]
        return FileResult(_postprocess(None, diags, config), "checked as a workflow because it was asked for")
    return _check(source, config, fmt, require_workflow, views)


def check_bytes(
    data: bytes, path: str = "<stdin>", config: Config | None = None, fmt: str | None = None, *, require_workflow: bool = False
) -> list[Diagnostic] | None:
    return _check_data(data, path, config or Config(), fmt, require_workflow).diagnostics


def check_text(text: str, path: str = "<stdin>", config: Config | None = None, fmt: str | None = None) -> list[Diagnostic]:
    """Check one document given as text. ``fmt`` ("yaml"/"json") overrides the file suffix."""
    config = config or Config()
    most = config.limits.file_bytes
    # a character is 1 to 4 bytes in UTF-8: count the bytes only when it can matter
    if len(text) > most or (len(text) * 4 > most and len(text.encode("utf-8", "surrogatepass")) > most):
        return _postprocess(None, [too_large(path, most)], config)
    return check_source(SourceFile(text, path), config, fmt)  # type: ignore[return-value]


def too_large(path: str, limit: int, size: int | None = None) -> Diagnostic:
    """WF006 (unreadable-file) for a file, standard input or text over the ``file-bytes`` limit."""
    what = "too large to be a workflow definition" + ("" if size is None else f" ({size} bytes)")
    return unreadable(path, f"{what}: over the 'file-bytes' limit of {limit} (raise it with --limit file-bytes=N "
                            "or [limits] in .wflint.toml)")


def unreadable(shown: str, message: str) -> Diagnostic:
    """The WF006 finding for an entry that could not be read."""
    from .rules import wf006_unreadable_file as wf006

    zero = Pos(1, 1, 0)
    return make(wf006.CODE, wf006.NAME, wf006.SEVERITY, message, zero, zero, path=shown,
                help="fix the entry, or add it to `exclude` in the configuration")


def check_file(path: Path, config: Config | None = None, *, explicit: bool = True) -> list[Diagnostic] | None:
    """Check one file as a workflow (with ``explicit=False``: only if its content is one,
    None otherwise). An unreadable file gives its WF006 finding."""
    config = config or Config()
    shown = str(path)
    try:
        data = read_limited(path, config.limits.file_bytes)
    except OSError as exc:
        return [unreadable(shown, unreadable_reason(path, shown, exc))]
    return _check_data(data, shown, config, None, not explicit).diagnostics


def _check_candidate(candidate: Candidate, config: Config, codes: list[str]) -> FileResult:
    if codes:
        config = replace(config, ignore=[*config.ignore, *codes])
    try:
        data = read_limited(candidate.path, config.limits.file_bytes)
    except TooLarge as exc:
        return FileResult(_postprocess(None, [unreadable(candidate.shown, str(exc))], config), "too large to read", False)
    except OSError as exc:  # it vanished or changed since the walk
        message = unreadable_reason(candidate.path, candidate.shown, exc)
        return FileResult(_postprocess(None, [unreadable(candidate.shown, message)], config), "unreadable", False)
    result = _check_data(data, candidate.shown, config, None, recognition_decides(candidate, config))
    if candidate.declared:
        result.reason = "declared a workflow by the configuration's include"
    return result


def recognition_decides(candidate: Candidate, config: Config) -> bool:
    """Whether a file's content decides if it is checked: only for a file met in a walk, or
    for a named one under ``skip_non_workflows`` (the pre-commit hook). A file the user names
    is a workflow because the user said so, and one an ``include`` glob matches is declared one."""
    if candidate.declared:
        return False
    return not candidate.explicit or config.skip_non_workflows


def check_stdin(data: bytes, name: str, config: Config) -> FileResult:
    """Standard input, which obeys the file size limit and, like a named file, is checked as
    a workflow whatever it holds (unless ``skip_non_workflows``)."""
    return _check_data(data, name, config, None, config.skip_non_workflows)


#: below this many files a process pool costs more than it saves
PARALLEL_THRESHOLD = 64


#: called after each file as on_file(path, checked, done, total); checked is False for a file
#: skipped as not a workflow (the CLI's progress line and the list of files a report names)
FileCallback = Callable[[str, bool, int, int], None]


def check_paths(paths: Iterable[str | Path], config: Config | None = None, *, jobs: int | None = None,
                on_file: FileCallback | None = None, respect_gitignore: bool | None = None,
                follow_links: bool = False) -> Report:
    """Check files and directories: every file the walk finds (``wflint.project.discovery``) whose
    content is a workflow. ``jobs`` processes share the work (default: one per usable CPU, see
    ``usable_cpus``, and a single process for small runs)."""
    config = config or Config()
    gitignore = config.respect_gitignore if respect_gitignore is None else respect_gitignore
    found = discover(paths, config, respect_gitignore=gitignore, follow_links=follow_links)
    report = Report(skipped=list(found.skipped))
    for problem in found.problems:  # listed by --show-files too, with the reason
        report.add(problem.shown, FileResult(_postprocess(None, [unreadable(problem.shown, problem.message)], config),
                                             f"unreadable: {problem.message}", read=False))
    globs = Globs(config, base_dir(config))
    work = [(c, globs.ignored_codes(c.path)) for c in found.candidates]
    jobs = jobs or usable_cpus()
    if jobs > 1 and len(work) >= PARALLEL_THRESHOLD:
        results: Iterable[FileResult] = _check_parallel(work, config, jobs)
    else:
        results = (_check_candidate(c, config, codes) for c, codes in work)
    for done, ((candidate, _), result) in enumerate(zip(work, results), 1):
        report.add(candidate.shown, result)
        if on_file is not None:
            on_file(candidate.shown, result.read and result.diagnostics is not None, done, len(work))
    return report


def usable_cpus() -> int:
    """The default worker count: the CPUs this process may run on (its affinity, which a
    container's CPU set narrows). A reading of the load average was tried instead, and on a
    quiet machine it counted wflint's own recent work and fell back to one worker, doubling
    the wall time of a large run; on a busy shared machine ``--jobs 1`` is the choice."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def iter_files(paths: Iterable[str | Path], config: Config) -> Iterator[tuple[Path, bool]]:
    """(file, named on the command line) for every regular file discovery finds under
    ``paths`` (entries it cannot read are left out: ``check_paths`` reports them)."""
    found = discover(paths, config, respect_gitignore=config.respect_gitignore)
    for candidate in found.candidates:
        yield candidate.path, candidate.explicit


#: in a worker of a parallel run, the run's configuration: handed to the worker once as it
#: starts (``_use_config``), rather than pickled with every file
_RUN_CONFIG: Config | None = None


def _use_config(config: Config) -> None:
    global _RUN_CONFIG
    _RUN_CONFIG = config


def _check_one(args: tuple[Candidate, list[str]]) -> FileResult:
    candidate, codes = args
    assert _RUN_CONFIG is not None, "a worker checks with its run's configuration (_use_config)"
    return _check_candidate(candidate, _RUN_CONFIG, codes)


def _check_parallel(work: list[tuple[Candidate, list[str]]], config: Config, jobs: int) -> Iterator[FileResult]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: workers inherit the imported rules and compiled validators instead of paying
    # for them again; fall back to one process where fork does not exist
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:
        yield from (_check_candidate(c, config, codes) for c, codes in work)
        return
    _load_before_fork()
    # small chunks: the workers finish within a few files of each other (with eight chunks a
    # worker, the last one alone could hold the run for a quarter of a second)
    chunk = max(1, len(work) // (jobs * 32))
    import gc

    # what the parent holds (modules, rules, validators) stays out of the workers' collections:
    # they would otherwise touch, and so copy, every inherited page
    gc.freeze()
    try:
        # yielded as they arrive (in order), so a progress display can follow the run
        with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_use_config,
                                 initargs=(config,)) as pool:
            yield from pool.map(_check_one, work, chunksize=chunk)
    finally:
        gc.unfreeze()


def _load_before_fork() -> None:
    """Import what every file's check needs, whatever the file holds, before the workers are
    forked: the rule modules and jsonschema-rs (``available`` imports it), which the workers then
    share instead of each importing them. The parent used to check the first file for this; that also compiled
    the validators of that one file's shapes, and kept both workers waiting for it (55 ms of a
    1,000-file run). What only some files need (Jinja's parser, python-jsonschema for a refused
    object's errors) is imported by the workers that meet them."""
    from .checks import fast_validation

    registry()
    fast_validation.available()


class Inspection(MutableRecord):
    """One file's workflow views next to its diagnostics (after suppressions), for tools that
    show a workflow rather than list its problems (``wflint graph``)."""

    def __init__(self, path: str, workflows: list[view.Workflow], diagnostics: list[Diagnostic]) -> None:
        assign(self, locals())


def inspect_bytes(data: bytes, path: str = "<stdin>", config: Config | None = None, *,
                  require_workflow: bool = False) -> Inspection | None:
    """Like ``check_bytes`` (the same single check), keeping the workflow views the rules read;
    None, with ``require_workflow``, when the content is not a workflow."""
    views: list[view.Workflow] = []
    result = _check_data(data, path, config or Config(), None, require_workflow, views)
    return None if result.diagnostics is None else Inspection(path, views, result.diagnostics)


def inspect_file(path: Path, config: Config | None = None, *, explicit: bool = True) -> Inspection | None:
    """Like ``check_file``: None when a file met while walking a directory is not a workflow
    (by content, as ``check_paths`` decides)."""
    try:
        data = read_limited(path, (config or Config()).limits.file_bytes)
    except TooLarge:
        return Inspection(str(path), [], check_file(path, config) or [])
    except OSError as exc:
        raise FileNotFoundError(f"cannot read {path}: {exc.strerror or exc}") from None
    return inspect_bytes(data, str(path), config, require_workflow=not explicit)


# ------------------------------------------------------------------------------ server side


class Evaluation(MutableRecord):
    def __init__(self, workflow: view.Workflow, diagnostics: list[Diagnostic]) -> None:
        assign(self, locals())

    @property
    def rejections(self) -> list[ServiceVerdict]:
        """The service's rejections, in the order its pipeline meets them (first wins)."""
        verdicts = [d.service for d in self.diagnostics if d.service is not None]
        return sorted(verdicts, key=lambda v: _order_key(v.order))


def _order_key(order: tuple) -> tuple:
    return tuple((0, x) if isinstance(x, (int, float)) else (1, str(x)) for x in order)


def evaluate(request: dict[str, Any], *, mode: str = "json", sanitized: bool = False, config: Config | None = None) -> Evaluation:
    """Check a request given as plain data (no positions). ``mode="yaml"`` applies the
    sanitizer unless ``sanitized`` says the caller already did."""
    from .document.data_tree import node_tree

    with collector_paused():
        return _evaluate(node_tree(request), request, mode, sanitized, config or Config())


def _evaluate(root, request: dict[str, Any], mode: str, sanitized: bool, config: Config) -> Evaluation:
    if mode == "yaml" and not sanitized:
        wf = unwrap.workflow_for("<request>", "yaml", root, release=config.target_version)
    else:
        wf = view.build("<request>", mode, root, request, release=config.target_version)
    diags = finalize(run_rules(wf, active_rules(config)))
    return Evaluation(wf, diags)
