"""``wflint test``: find the test files, run their cases, judge them, measure coverage.

The convention: ``orders.test.yaml`` (or ``.test.yml`` / ``.test.json``) tests the workflow
``orders.yaml`` (or ``.yml`` / ``.json``) in the same directory; a ``workflow:`` key names
another file, relative to the test file. A test file holds ``cases:``, each a stub case of
``service-runs.md`` (``name``, ``parameters``, ``blocks``, ``tasks``, ``llm``,
``prompt_branches``) plus ``expect:`` (see ``expect``) and optionally ``network: true``.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .coverage import Coverage
from .expect import KNOWN, Failure, judge
from .loading import LoadError, check_case, load_workflow, read_data
from .runs import run_case

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
    deselected: int = 0
    seconds: float = 0.0

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


def read_test_file(path: Path) -> tuple[Path, list[dict[str, Any]], bool | None]:
    if not is_test_file(path):
        raise LoadError(f"{path}: not a test file (name it NAME.test.yaml beside NAME.yaml)")
    data = read_data(path)
    cases, network = test_cases(data, str(path))
    return workflow_for(path, data), cases, network


def test_cases(data: Any, where: str) -> tuple[list[dict[str, Any]], bool | None]:
    """A test file's cases (each named) and its ``network`` setting, from its data (``wflint
    diff`` reads test files from git revisions, not only from disk)."""
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        raise LoadError(f"{where}: a test file is a mapping with a 'cases' list")
    cases = []
    for index, case in enumerate(data["cases"]):
        at = f"{where}: case {index + 1}"
        if not isinstance(case, dict):
            raise LoadError(f"{at} is not a mapping")
        check_case(case, at)
        expect = case.get("expect") or {}
        if not isinstance(expect, dict):
            raise LoadError(f"{at}: 'expect' must be a mapping")
        unknown = sorted(set(expect) - KNOWN)
        if unknown:
            raise LoadError(f"{at}: unknown expectation(s) {', '.join(unknown)} (known: {', '.join(sorted(KNOWN))})")
        cases.append({**case, "name": str(case.get("name") or f"case {index + 1}")})
    network = data.get("network") if isinstance(data.get("network"), bool) else None
    return cases, network


def run_suite(paths: list[str], *, keyword: str | None = None, network: bool = False) -> SuiteResult:
    started = time.perf_counter()
    suite = SuiteResult()
    selected = compile_keyword(keyword) if keyword else None  # KeywordError before any work
    for test_file in find_test_files(paths):
        shown = str(test_file)
        try:
            workflow_path, cases, file_network = read_test_file(test_file)
            workflow = load_workflow(workflow_path)
        except LoadError as exc:
            suite.cases.append(CaseResult(shown, "", "<file>", error=str(exc)))
            continue
        coverage = suite.coverage.setdefault(workflow.path, Coverage.of(workflow.request))
        for case in cases:
            if selected is not None and not selected(f"{shown}::{case['name']}"):
                suite.deselected += 1
                continue
            begun = time.perf_counter()
            use_network = case.get("network") if isinstance(case.get("network"), bool) else (
                file_network if file_network is not None else network)
            stub_case = {k: v for k, v in case.items() if k not in ("expect", "network")}
            refusal = workflow.refusal()
            try:
                if refusal:
                    result, inputs = {"name": case["name"], **refusal}, []
                else:
                    result, inputs, _ = run_case(workflow.request, stub_case, network=use_network)
            except Exception as exc:  # noqa: BLE001 - one broken case must not hide the others
                suite.cases.append(CaseResult(shown, workflow.path, case["name"],
                                              error=f"internal error: {type(exc).__name__}: {exc}"))
                continue
            coverage.add(result)
            failures = judge(case.get("expect") or {}, result, inputs)
            suite.cases.append(CaseResult(shown, workflow.path, case["name"], failures, None, result,
                                          time.perf_counter() - begun))
    suite.seconds = time.perf_counter() - started
    return suite


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
