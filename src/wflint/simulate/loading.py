"""Workflows and cases from files: a workflow through the library API (the request the service
would receive, with the file's findings), a case file as JSON or YAML (one case or a list)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..api import Inspection, inspect_file
from ..project.config import Config
from ..core.diagnostics import Diagnostic


class LoadError(Exception):
    """A file that cannot be used (a usage error: exit 2)."""


@dataclass
class LoadedWorkflow:
    path: str
    request: dict[str, Any]
    #: the findings at or above error severity (the service would refuse, or the run fails)
    errors: list[Diagnostic] = field(default_factory=list)

    #: the body the service receives for this file: ``{"json_definition": data}`` for a ``.json``
    #: file, ``{"yaml_definition": text}`` for YAML (the form decides the refusal's wording)
    body: dict[str, Any] | None = None
    _refusal: Any = field(default=None, repr=False)

    def refusal(self) -> dict[str, Any] | None:
        """How the service answers the save when it refuses the workflow: its own status and
        body, from the mock's save pipeline (the service's words, not wflint's lint text). No
        run can start then. ``None`` when it accepts it. Only a file with error findings is
        sent through the pipeline: the service accepts what wflint finds nothing wrong with."""
        if self._refusal is None:
            self._refusal = (self._ask_service() if self.errors else None) or False
        return self._refusal or None

    def _ask_service(self) -> dict[str, Any] | None:
        try:
            # the mock's save pipeline needs the serve extra (pydantic); without it the refusal
            # is worded by wflint's own checks
            from ..server.answers import save_answer
        except ImportError:
            return self._lint_refusal()
        try:
            answer = save_answer(self.body if self.body is not None else {"json_definition": self.request})
        except Exception:  # noqa: BLE001 - the mock failing must not fail the simulation
            return self._lint_refusal()
        if answer is None:
            return None
        status, body = answer
        return {"http_status": status, "body": body}

    def _lint_refusal(self) -> dict[str, Any] | None:
        """The first rejection in the service's order, as wflint's checks word it."""
        verdicts = sorted((d.service for d in self.errors if d.service is not None),
                          key=lambda v: tuple((0, x) if isinstance(x, (int, float)) else (1, str(x)) for x in v.order))
        if not verdicts:
            return None
        first = next((d for d in self.errors if d.service is verdicts[0]), None)
        detail = verdicts[0].detail if verdicts[0].detail is not None else (first.message if first else None)
        return {"http_status": verdicts[0].status, "body": {"detail": detail}}


def load_workflow(path: Path, config: Config | None = None) -> LoadedWorkflow:
    if not path.is_file():
        raise LoadError(f"{path}: no such file")
    try:
        inspection = inspect_file(path, config or Config(), explicit=True)
    except FileNotFoundError as exc:
        raise LoadError(str(exc)) from None
    return loaded_from(inspection, str(path), _service_body(path))


def loaded_from(inspection: Inspection | None, shown: str, body: dict[str, Any] | None = None) -> LoadedWorkflow:
    """The workflow a run starts from, out of one file's inspection (``api.inspect_bytes`` or
    ``inspect_file``): the first request the service would store, with the file's errors."""
    workflows = [wf for wf in (inspection.workflows if inspection else []) if not wf.schema_only]
    if not workflows:
        raise LoadError(f"{shown}: not a workflow definition")
    errors = [d for d in inspection.diagnostics if d.severity == "error"] if inspection else []
    wf = workflows[0]
    # sent as yaml_definition, the service stores (and runs) the sanitized request: labels renamed
    request = wf.sanitized.request if wf.sanitized is not None else wf.request
    return LoadedWorkflow(shown, request, errors, body)


def _service_body(path: Path) -> dict[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError):
        return None
    return service_body(text, path.name)


def service_body(text: str, name: str) -> dict[str, Any] | None:
    """The body the service receives for a file named ``name`` holding ``text``."""
    if not name.lower().endswith(".json"):
        return {"yaml_definition": text}
    try:
        return {"json_definition": json.loads(text)}
    except ValueError:
        return None


CASE_KEYS = frozenset({"name", "parameters", "secrets", "blocks", "tasks", "llm", "prompt_branches", "http", "network",
                       "expect"})


def load_cases(path: Path) -> list[dict[str, Any]]:
    """The cases of a case file: one mapping, a list of them, ``{"cases": [...]}``, or JSON lines
    (``.jsonl``); an engine-oracle case ``{"name", "workflow", "case": {...}}`` gives its stub table.
    Read through the document stage's limits and checked against the case schema (``testfile``)."""
    from ..model.test_file import CASE
    from .testfile import FileProblems, read, validate

    try:
        if path.suffix.lower() == ".jsonl":
            items = _json_lines(path)
        else:
            doc = read(path)
            data = doc.data
            base: tuple = ()
            shared: dict[str, Any] = {}
            if isinstance(data, dict) and isinstance(data.get("cases"), list):
                # a test file: its file-level secrets and http rules go to every case, as in wflint test
                from ..model.test_file import TEST_FILE

                validate(doc, TEST_FILE)
                shared = {k: data[k] for k in ("secrets", "http") if k in data}
                data, base = data["cases"], ("cases",)
            items = data if isinstance(data, list) else [data]
            for index, item in enumerate(items):
                where = (*base, index) if isinstance(data, list) else base
                if base:
                    continue  # checked with its test file
                if isinstance(item, dict) and isinstance(item.get("case"), dict):
                    validate(doc, CASE, (*where, "case"))
                elif isinstance(item, dict):
                    validate(doc, CASE, where) if where else validate(doc, CASE)
            if doc.problems:
                raise FileProblems(doc.problems)
            if shared:
                items = [_with_shared(item, shared) for item in items]
    except FileProblems as exc:
        raise LoadError(str(exc)) from None
    items = [{"name": item.get("name"), **item["case"]} if isinstance(item, dict) and isinstance(item.get("case"), dict)
             else item for item in items]
    cases = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise LoadError(f"{path}: case {index + 1} is not a mapping")
        check_case(item, f"{path}: case {index + 1}")
        cases.append({"name": item.get("name") or f"{path.stem}[{index + 1}]",
                      **{k: v for k, v in item.items() if k not in ("expect", "network")}})
    return cases


def _json_lines(path: Path) -> list[Any]:
    from ..document.limits import DEFAULT

    try:
        if path.stat().st_size > DEFAULT.file_bytes:
            raise LoadError(f"{path}: the file is over the {DEFAULT.file_bytes}-byte limit (WF007)")
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError, RecursionError) as exc:
        raise LoadError(f"{path}: not valid JSON lines: {exc}") from None


def check_case(case: dict[str, Any], where: str) -> None:
    for key in ("parameters", "secrets", "blocks", "tasks", "llm", "prompt_branches"):
        if case.get(key) is not None and not isinstance(case[key], dict):
            raise LoadError(f"{where}: '{key}' must be a mapping of labels (or parameter keys)")
    if case.get("http") is not None and not isinstance(case["http"], list):
        raise LoadError(f"{where}: 'http' must be a list of rules")


def _with_shared(case: Any, shared: dict[str, Any]) -> Any:
    """A test file's case with the file's ``secrets`` (the case's win) and ``http`` rules (after
    the case's own)."""
    if not isinstance(case, dict):
        return case
    merged = dict(case)
    if isinstance(shared.get("secrets"), dict):
        merged["secrets"] = {**shared["secrets"], **(case.get("secrets") or {})}
    if isinstance(shared.get("http"), list):
        merged["http"] = [*(case.get("http") or []), *shared["http"]]
    return merged
