"""The library API. The CLI and the mock server are thin layers over these functions.

    >>> from wflint import check_text
    >>> diags = check_text(open("flow.yaml").read(), path="flow.yaml")

``check_paths`` walks files and directories; ``evaluate`` checks a request that arrives as
plain data (the mock server's case) and reports the service's verdict next to the diagnostics.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from .workflow import unwrap
from .report import suppressions
from .workflow import view
from .config import Config
from .diagnostics import Diagnostic, ServiceVerdict, finalize
from .document.parse import parse
from .rules import Rule, matches, registry
from .document.source import SourceFile, decode
from .document import limits as _limits

WORKFLOW_SUFFIXES = (".yaml", ".yml", ".json")
#: files larger than this are reported instead of parsed (a definition is a few KB); the
#: default of ``Config.limits.file_bytes``
MAX_FILE_BYTES = _limits.DEFAULT.file_bytes


class InternalError(Exception):
    """A bug in wflint (a rule crashed): the CLI exits with status 3."""


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files_checked: int = 0
    files_skipped: int = 0


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


def check_source(
    source: SourceFile, config: Config | None = None, fmt: str | None = None, *, require_workflow: bool = False
) -> list[Diagnostic] | None:
    """Check one decoded file. With ``require_workflow`` (files met while walking a
    directory), a well-formed file that is not a workflow gives None instead of findings."""
    config = config or Config()
    parsed = parse(source, fmt, config.limits)
    diags = list(parsed.diagnostics)
    root = parsed.root
    if require_workflow and root is not None and not unwrap.looks_like_workflow(root):
        return None
    if root is not None and root.kind == "map":
        unwrapped = unwrap.unwrap(source, root, parsed.format, config.mode, config.limits)
        diags.extend(unwrapped.diagnostics)
        rules = active_rules(config)
        for wf in unwrapped.workflows:
            diags.extend(run_rules(wf, rules))
    return _postprocess(source, diags, config)


def check_bytes(
    data: bytes, path: str = "<stdin>", config: Config | None = None, fmt: str | None = None, *, require_workflow: bool = False
) -> list[Diagnostic] | None:
    config = config or Config()
    if len(data) > config.limits.file_bytes:
        return _postprocess(None, [too_large(path, config.limits.file_bytes, len(data))], config)
    source, diags = decode(data, path)
    if source is None:
        return _postprocess(None, diags, config)
    return check_source(source, config, fmt, require_workflow=require_workflow)


def check_text(text: str, path: str = "<stdin>", config: Config | None = None, fmt: str | None = None) -> list[Diagnostic]:
    """Check one document given as text. ``fmt`` ("yaml"/"json") overrides the file suffix."""
    config = config or Config()
    most = config.limits.file_bytes
    # a character is 1 to 4 bytes in UTF-8: count the bytes only when it can matter
    if len(text) > most or (len(text) * 4 > most and len(text.encode("utf-8", "surrogatepass")) > most):
        return _postprocess(None, [too_large(path, most)], config)
    return check_source(SourceFile(text, path), config, fmt)


def too_large(path: str, limit: int, size: int | None = None) -> Diagnostic:
    """WF006 for a file (or standard input, or text) over the ``file-bytes`` limit."""
    from .diagnostics import Pos, make

    what = "file too large" if size is None else f"file too large ({size} bytes)"
    zero = Pos(1, 1, 0)
    return make(_limits.CODE, _limits.NAME, "error", _limits.exceeded("file_bytes", what, limit), zero, zero, path=path)


def check_file(path: Path, config: Config | None = None, *, explicit: bool = True) -> list[Diagnostic] | None:
    """Check one file; None when a file met while walking a directory is not a workflow."""
    shown = str(path)
    most = (config or Config()).limits.file_bytes
    try:
        size = path.stat().st_size
        if size > most:
            return _postprocess(None, [too_large(shown, most, size)], config or Config())
        data = path.read_bytes()
    except OSError as exc:
        raise FileNotFoundError(f"cannot read {shown}: {exc.strerror or exc}") from None
    if not explicit and not _looks_like_workflow_bytes(data):
        return None
    return check_bytes(data, shown, config, require_workflow=not explicit)


def _looks_like_workflow_bytes(data: bytes) -> bool:
    # cheap pre-filter for directory walks: the top-level key must appear somewhere
    return any(k in data for k in (b"workflow_definition", b"json_definition", b"yaml_definition"))


def iter_files(paths: Iterable[str | Path], config: Config) -> Iterator[tuple[Path, bool]]:
    """(file, named explicitly) for every path; directories are walked recursively."""
    for p in paths:
        path = Path(p)
        if path.is_dir():
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in ("node_modules", "__pycache__"))
                for name in sorted(filenames):
                    if not name.endswith(WORKFLOW_SUFFIXES):
                        continue
                    f = Path(dirpath) / name
                    rel = f.as_posix()
                    if any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(name, pat) for pat in config.exclude):
                        continue
                    yield f, False
        elif path.exists():
            yield path, True
        else:
            raise FileNotFoundError(f"no such file or directory: {p}")


#: below this many files a process pool costs more than it saves
PARALLEL_THRESHOLD = 64


#: called after each file as on_file(path, checked, done, total); checked is False for a file
#: skipped as not a workflow (the CLI's progress line and the list of files a report names)
FileCallback = Callable[[str, bool, int, int], None]


def check_paths(
    paths: Iterable[str | Path], config: Config | None = None, *, jobs: int | None = None, on_file: FileCallback | None = None
) -> Report:
    """Check files and directories. ``jobs`` processes share the work (default: one per
    idle CPU, see ``idle_cpus``, and a single process for small runs)."""
    config = config or Config()
    report = Report()
    files = list(iter_files(paths, config))
    jobs = jobs or idle_cpus()
    if jobs > 1 and len(files) >= PARALLEL_THRESHOLD:
        results = _check_parallel(files, config, jobs)
    else:
        results = (check_file(f, config, explicit=explicit) for f, explicit in files)
    for done, ((path, _), diags) in enumerate(zip(files, results), 1):
        if diags is None:
            report.files_skipped += 1
        else:
            report.files_checked += 1
            report.diagnostics.extend(diags)
        if on_file is not None:
            on_file(str(path), diags is not None, done, len(files))
    return report


def idle_cpus() -> int:
    """The default worker count: the CPUs this process may use that other processes are not
    already keeping busy (one-minute load average), at least one. On a shared machine a
    second worker competing for a busy core made a run slower, not faster."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        busy = 0.0
    return max(1, min(cpus, round(cpus - busy)))


def _check_one(args: tuple[Path, bool, Config]) -> list[Diagnostic] | None:
    path, explicit, config = args
    return check_file(path, config, explicit=explicit)


def _check_parallel(files: list[tuple[Path, bool]], config: Config, jobs: int) -> Iterator[list[Diagnostic] | None]:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork: workers inherit the imported rules and compiled validators instead of paying
    # for them again; fall back to one process where fork does not exist
    try:
        ctx = multiprocessing.get_context("fork")
    except ValueError:
        yield from (check_file(f, config, explicit=e) for f, e in files)
        return
    chunk = max(1, len(files) // (jobs * 8))
    # yielded as they arrive (in order), so a progress display can follow the run
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        yield from pool.map(_check_one, [(f, e, config) for f, e in files], chunksize=chunk)


@dataclass
class Inspection:
    """One file's workflow views next to its diagnostics (after suppressions), for tools that
    show a workflow rather than list its problems (``wflint graph``)."""

    path: str
    workflows: list[view.Workflow]
    diagnostics: list[Diagnostic]


def inspect_bytes(data: bytes, path: str = "<stdin>", config: Config | None = None) -> Inspection:
    """Like ``check_bytes``, keeping the workflow views the rules read."""
    config = config or Config()
    source, diags = decode(data, path)
    workflows: list[view.Workflow] = []
    if source is not None:
        parsed = parse(source, None)
        diags = [*diags, *parsed.diagnostics]
        if parsed.root is not None and parsed.root.kind == "map":
            unwrapped = unwrap.unwrap(source, parsed.root, parsed.format, config.mode)
            diags.extend(unwrapped.diagnostics)
            rules = active_rules(config)
            for wf in unwrapped.workflows:
                diags.extend(run_rules(wf, rules))
                workflows.append(wf)
    return Inspection(path, workflows, _postprocess(source, diags, config))


def inspect_file(path: Path, config: Config | None = None, *, explicit: bool = True) -> Inspection | None:
    """Like ``check_file``: None when a file met while walking a directory is not a workflow."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return Inspection(str(path), [], check_file(path, config) or [])
        data = path.read_bytes()
    except OSError as exc:
        raise FileNotFoundError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not explicit and not _looks_like_workflow_bytes(data):
        return None
    found = inspect_bytes(data, str(path), config)
    if not explicit and not found.workflows and not found.diagnostics:
        return None
    return found


# ------------------------------------------------------------------------------ server side


@dataclass
class Evaluation:
    workflow: view.Workflow
    diagnostics: list[Diagnostic]

    @property
    def rejections(self) -> list[ServiceVerdict]:
        """The service's rejections, in the order its pipeline meets them (first wins)."""
        verdicts = [d.service for d in self.diagnostics if d.service is not None]
        return sorted(verdicts, key=lambda v: _order_key(v.order))


def _order_key(order: tuple) -> tuple:
    return tuple((0, x) if isinstance(x, (int, float)) else (1, str(x)) for x in order)


def over_limits(request: dict[str, Any], limits: "_limits.Limits" = _limits.DEFAULT) -> Diagnostic | None:
    """The WF006 finding of the first limit a request given as plain data exceeds (string
    lengths, blocks, parameters, loop nesting), or None: for the mock server, before it
    evaluates or stores anything. Depth and size are the caller's to bound while parsing."""
    from .document.data_tree import node_tree
    from .workflow.size_limits import first_excess

    return first_excess(node_tree(request), limits, "<request>")


def evaluate(request: dict[str, Any], *, mode: str = "json", sanitized: bool = False, config: Config | None = None) -> Evaluation:
    """Check a request given as plain data (no positions). ``mode="yaml"`` applies the
    sanitizer unless ``sanitized`` says the caller already did."""
    from .document.data_tree import node_tree

    root = node_tree(request)
    if mode == "yaml" and not sanitized:
        wf = unwrap.workflow_for("<request>", "yaml", root)
    else:
        wf = view.build("<request>", mode, root, request)
    config = config or Config()
    diags = finalize(run_rules(wf, active_rules(config)))
    return Evaluation(wf, diags)
