"""``wflint test``: find the test files, run their cases, judge them, measure coverage.

The convention: ``orders.test.yaml`` (or ``.test.yml`` / ``.test.json``) tests the workflow
``orders.yaml`` (or ``.yml`` / ``.json``) in the same directory; a ``workflow:`` key names
another file, relative to the test file. A test file holds ``cases:``, each a stub case of
``service-runs.md`` (``name``, ``parameters``, ``blocks``, ``tasks``, ``llm``,
``prompt_branches``), the ``secrets`` and ``http`` tables (also at the top of the file, for
every case) plus ``expect:`` (see ``expect``) and optionally ``network: true``. The file is read
strictly (``testfile``): a problem is the file's error (exit 2), and the other files still run.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import testfile
from .coverage import Coverage
from .expect import Failure, judge
from .loading import LoadError, load_workflow
from .runs import CaseRun, run_case
from ..model.test_file import TEST_FILE
from .testfile import FileProblems

TEST_SUFFIXES = (".test.yaml", ".test.yml", ".test.json")
WORKFLOW_SUFFIXES = (".yaml", ".yml", ".json")
SKIPPED_DIRS = frozenset({".git", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"})


@dataclass
class CaseResult:
    test_file: str
    workflow: str
    name: str
    failures: list[Failure] = field(default_factory=list)
    #: the case could not run at all (a bad test file, an unreadable workflow)
    error: str | None = None
    result: dict[str, Any] | None = None
    seconds: float = 0.0
    #: the run: its rendered inputs, requests, and what ran on a default
    run: CaseRun | None = None

    @property
    def passed(self) -> bool:
        return not self.failures and self.error is None

    @property
    def node_id(self) -> str:
        return f"{self.test_file}::{self.name}"


@dataclass
class SuiteResult:
    cases: list[CaseResult] = field(default_factory=list)
    coverage: dict[str, Coverage] = field(default_factory=dict)
    #: workflows under the paths that no test file tests (with ``find_untested``), nothing hit
    untested: dict[str, Coverage] = field(default_factory=dict)
    deselected: int = 0
    seconds: float = 0.0

    def total(self) -> dict[str, Any]:
        from .coverage import total

        return total([*self.coverage.values(), *self.untested.values()])

    @property
    def failed(self) -> list[CaseResult]:
        return [c for c in self.cases if not c.passed]


def is_test_file(path: Path) -> bool:
    return path.name.lower().endswith(TEST_SUFFIXES)


def find_test_files(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for candidate in sorted(path.rglob("*")):
                if is_test_file(candidate) and candidate.is_file() and not SKIPPED_DIRS & set(candidate.parts):
                    found.append(candidate)
        elif path.is_file():
            found.append(path if is_test_file(path) else test_file_for(path) or path)
        else:
            raise LoadError(f"{raw}: no such file or directory")
    return list(dict.fromkeys(found))


def test_file_for(workflow: Path) -> Path | None:
    """The test file beside a workflow file, if there is one."""
    stem = workflow.name[: -len(workflow.suffix)] if workflow.suffix else workflow.name
    for suffix in TEST_SUFFIXES:
        candidate = workflow.with_name(stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def workflow_for(test_file: Path, data: dict[str, Any]) -> Path:
    if isinstance(data.get("workflow"), str):
        return (test_file.parent / data["workflow"]).resolve()
    base = test_file.name[: -len(next(s for s in TEST_SUFFIXES if test_file.name.lower().endswith(s)))]
    for suffix in WORKFLOW_SUFFIXES:
        candidate = test_file.with_name(base + suffix)
        if candidate.is_file():
            return candidate
    raise LoadError(f"{test_file}: no workflow beside it ({base}.yaml, .yml or .json); name one with 'workflow:'")


def read_test_file(path: Path, text: str | None = None) -> tuple[Path, list[dict[str, Any]], bool | None, testfile.Document]:
    """The workflow a test file tests, its cases (file-level ``secrets`` and ``http`` merged in)
    and its ``network``; ``FileProblems`` naming every problem (exit 2)."""
    if not is_test_file(path):
        raise FileProblems([f"{path}: not a test file (name it NAME.test.yaml beside NAME.yaml)"])
    doc = testfile.read(path, text=text)
    if not isinstance(doc.data, dict):
        message = "a test file is a mapping with a 'cases' list"
        raise FileProblems([f"{path}:1:1: {message}"], [testfile.Problem(1, 1, message)])
    testfile.validate(doc, TEST_FILE)
    data = doc.data
    if not isinstance(data.get("cases"), list):
        raise FileProblems(doc.problems, doc.found)
    try:
        workflow_path = workflow_for(path, data)
    except LoadError as exc:
        raise FileProblems([*doc.problems, str(exc)], [*doc.found, testfile.Problem(1, 1, str(exc))]) from None
    cases = []
    shared_secrets, shared_http = data.get("secrets") or {}, data.get("http") or []
    shared_secrets = shared_secrets if isinstance(shared_secrets, dict) else {}
    shared_http = shared_http if isinstance(shared_http, list) else []
    for index, case in enumerate(data["cases"]):
        case = case if isinstance(case, dict) else {}
        merged = {**case, "name": str(case.get("name") or f"case {index + 1}")}
        if shared_secrets and isinstance(case.get("secrets", {}), dict):
            merged["secrets"] = {**shared_secrets, **(case.get("secrets") or {})}
        if shared_http and isinstance(case.get("http", []), list):
            merged["http"] = [*(case.get("http") or []), *shared_http]
        cases.append(merged)
    network = data.get("network") if isinstance(data.get("network"), bool) else None
    return workflow_path, cases, network, doc


def test_cases(data: Any, where: str) -> tuple[list[dict[str, Any]], bool | None]:
    """A test file's cases (each named, the file's ``secrets`` and ``http`` merged in) and its
    ``network`` setting, from its data (``wflint diff`` reads test files from git revisions, not
    only from disk); ``LoadError`` naming the first thing the test-file schema refuses."""
    from jsonschema import Draft202012Validator

    error = next(iter(sorted(Draft202012Validator(TEST_FILE).iter_errors(data), key=lambda e: list(map(str, e.path)))), None)
    if error is not None:
        at = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
        raise LoadError(f"{where}: {at.lstrip('.') or 'the file'}: {error.message}")
    shared_secrets, shared_http = data.get("secrets") or {}, data.get("http") or []
    cases = []
    for index, case in enumerate(data["cases"]):
        merged = {**case, "name": str(case.get("name") or f"case {index + 1}")}
        if shared_secrets:
            merged["secrets"] = {**shared_secrets, **(case.get("secrets") or {})}
        if shared_http:
            merged["http"] = [*(case.get("http") or []), *shared_http]
        cases.append(merged)
    return cases, data.get("network") if isinstance(data.get("network"), bool) else None


def check_against(doc: testfile.Document, cases: list[dict[str, Any]], request: dict[str, Any]) -> None:
    """``FileProblems`` for the stubs, expectations and parameters that name nothing in the workflow."""
    names = testfile.WorkflowNames.of(request)
    for index, case in enumerate(cases):
        testfile.check_names(doc, case, ("cases", index), names)
    if doc.problems:  # the schema's problems too: the file is reported whole
        raise FileProblems(doc.problems, doc.found)


def problems_in(path: Path, text: str) -> list[testfile.Problem]:
    """Everything wrong with a test file's text (an editor's buffer): what ``wflint test``
    would report for it before running a case."""
    try:
        _workflow, cases, _network, doc = read_test_file(path, text)
        try:
            workflow = load_workflow(_workflow)
        except LoadError as exc:
            return [*doc.found, testfile.Problem(1, 1, str(exc))]
        check_against(doc, cases, workflow.request)
    except FileProblems as exc:
        return exc.found or [testfile.Problem(1, 1, p) for p in exc.problems]
    return []


def run_suite(paths: list[str], *, keyword: str | None = None, network: bool = False,
              find_untested: bool = False, changed: bool = False) -> SuiteResult:
    """Run the test files under ``paths``. ``changed``: the paths are changed files (as pre-commit
    names them): run the test files among them and those of the workflows among them, nothing
    else. ``find_untested``: also list the workflows under the paths that no test file tests."""
    started = time.perf_counter()
    suite = SuiteResult()
    selected = compile_keyword(keyword) if keyword else None  # KeywordError before any work
    for test_file in (tests_for_changed(paths) if changed else find_test_files(paths)):
        shown = str(test_file)
        try:
            workflow_path, cases, file_network, doc = read_test_file(test_file)
            try:
                workflow = load_workflow(workflow_path)
            except LoadError as exc:
                raise FileProblems([*doc.problems, str(exc)]) from None
            check_against(doc, cases, workflow.request)
        except (LoadError, FileProblems) as exc:
            suite.cases.append(CaseResult(shown, "", "<file>", error=str(exc)))
            continue
        coverage = suite.coverage.setdefault(workflow.path, Coverage.of(workflow.request))
        for case in cases:
            if selected is not None and not selected(f"{shown}::{case['name']}"):
                suite.deselected += 1
                continue
            suite.cases.append(run_one(shown, workflow, case, file_network, network, coverage))
    if find_untested:
        from .untested import untested_workflows

        tested = {Path(p).resolve() for p in suite.coverage} | {Path(c.workflow).resolve() for c in suite.cases if c.workflow}
        suite.untested = untested_workflows(paths, tested)
    suite.seconds = time.perf_counter() - started
    return suite


def tests_for_changed(paths: list[str]) -> list[Path]:
    """The test files to run for a commit that changes ``paths``: the test files among them, the
    test file beside each workflow among them, and any test file whose ``workflow:`` names one.
    A path that is neither (a config file, a README) is left alone; a deleted one too."""
    found: list[Path] = []
    workflows: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if not path.is_file():
            continue
        if is_test_file(path):
            found.append(path)
        elif path.suffix.lower() in WORKFLOW_SUFFIXES:
            beside = test_file_for(path)
            if beside is not None:
                found.append(beside)
            workflows.add(path.resolve())
    if workflows:
        for candidate in _tracked_test_files():
            if candidate in found:
                continue
            try:
                data = testfile.read(candidate).data
            except FileProblems:
                continue
            if isinstance(data, dict) and isinstance(data.get("workflow"), str) \
                    and (candidate.parent / data["workflow"]).resolve() in workflows:
                found.append(candidate)
    return list(dict.fromkeys(found))


def run_one(shown: str, workflow: Any, case: dict[str, Any], file_network: bool | None, network: bool,
            coverage: Coverage) -> CaseResult:
    begun = time.perf_counter()
    use_network = case.get("network") if isinstance(case.get("network"), bool) else (
        file_network if file_network is not None else network)
    stub_case = {k: v for k, v in case.items() if k not in ("expect", "network")}
    refusal = workflow.refusal()
    try:
        if refusal:
            run = CaseRun({"name": case["name"], **refusal})
        else:
            run = run_case(workflow.request, stub_case, network=use_network)
        coverage.add(run.result)
        failures = judge(case.get("expect") or {}, run, case, hermetic=not use_network)
    except Exception as exc:  # noqa: BLE001 - one broken case must not hide the others
        return CaseResult(shown, workflow.path, case["name"], error=f"internal error: {type(exc).__name__}: {exc}")
    return CaseResult(shown, workflow.path, case["name"], failures, None, run.result,
                      time.perf_counter() - begun, run)


def _tracked_test_files() -> list[Path]:
    """The test files git tracks under the current directory (untracked work in progress is not
    part of a commit); outside a repository, every test file under it."""
    import subprocess

    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--", *(f"*{s}" for s in TEST_SUFFIXES)],
                                capture_output=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return find_test_files(["."])
    return [Path(name) for name in listed.decode("utf-8", "replace").split("\0") if name]


# --------------------------------------------------------------------------- -k expressions

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")
#: parentheses nested deeper than this are refused (the parser recurses once per level)
MAX_KEYWORD_DEPTH = 100
_OPERATORS = ("and", "or", "not")


class KeywordError(ValueError):
    """A ``-k`` expression that does not parse; ``str()`` says where and why (exit 2)."""


def compile_keyword(expression: str) -> Callable[[str], bool]:
    """pytest's ``-k``: case-insensitive substrings joined by ``and``, ``or``, ``not`` and
    parentheses, checked once before any case runs. Like pytest, an expression that does not
    parse is refused (``-k not`` is not "deselect everything", ``-k "(("`` is no internal error)."""
    tokens = _TOKEN.findall(expression)
    position = 0
    depth = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def fail(expected: str) -> KeywordError:
        got = f"'{peek()}'" if peek() is not None else "the end of the expression"
        return KeywordError(f"-k {expression[:60]!r}: after {position} word(s), expected {expected}, got {got}")

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def parse_or() -> Callable[[str], bool]:
        terms = [parse_and()]
        while peek() == "or":
            take()
            terms.append(parse_and())
        return terms[0] if len(terms) == 1 else (lambda name: any(t(name) for t in terms))

    def parse_and() -> Callable[[str], bool]:
        terms = [parse_not()]
        while peek() == "and":
            take()
            terms.append(parse_not())
        return terms[0] if len(terms) == 1 else (lambda name: all(t(name) for t in terms))

    def parse_not() -> Callable[[str], bool]:
        nonlocal depth
        nots = 0
        while peek() == "not":
            take()
            nots += 1
        if peek() == "(":
            take()
            depth += 1
            if depth > MAX_KEYWORD_DEPTH:
                raise KeywordError(f"-k: parentheses nest deeper than {MAX_KEYWORD_DEPTH} levels")
            inner = parse_or()
            if peek() != ")":
                raise fail("')'")
            take()
            depth -= 1
        elif peek() is None or peek() in _OPERATORS or peek() == ")":
            raise fail("a word or '('")
        else:
            word = take().lower()
            inner = lambda name: word in name  # noqa: E731
        return inner if nots % 2 == 0 else (lambda name: not inner(name))

    if not tokens:
        return lambda name: True
    matcher = parse_or()
    if peek() is not None:
        raise fail("'and', 'or' or the end")
    return lambda name: matcher(name.lower())


def keyword_matches(expression: str, name: str) -> bool:
    """Whether ``name`` is selected by ``expression`` (see :func:`compile_keyword`)."""
    return compile_keyword(expression)(name)
