"""Test files and case files, read strictly.

A test file is read through the document stage, with the limits a workflow file meets (size,
depth, nodes, alias expansion: a nine-line alias bomb is refused, not expanded), validated
against its JSON Schema (``model.test_file``: unknown keys are errors, with a did-you-mean), and
checked against the workflow it tests: a stub, an expectation or a parameter that names no
block or parameter of the workflow is an error too. Every problem of a file is reported with
its line and column; a file with problems runs none of its cases (exit 2), the others still run.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from ..document.limits import DEFAULT as DEFAULT_LIMITS, Limits
from ..document.nodes import Node
from ..document.parse import parse
from ..document.source import decode
from ..engine import secrets


#: stub tables and the block types whose execution each one stands in for (None: any type)
STUB_TYPES: dict[str, frozenset[str] | None] = {
    "blocks": None,
    "tasks": frozenset({"task", "navigation", "extraction", "login", "action", "file_download", "validation",
                        "task_v2", "goto_url"}),
    "llm": frozenset({"text_prompt"}),
    "prompt_branches": frozenset({"conditional", "while_loop"}),
}


class FileProblems(Exception):
    """Everything wrong with one test or case file, each line ``path:line:col: what``
    (``found``: the same with spans, when known)."""

    def __init__(self, problems: list[str], found: list["Problem"] | None = None) -> None:
        self.problems = problems
        self.found = found or []
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class Problem:
    """One problem of a file: where it starts and ends, and what it is."""

    line: int
    col: int
    message: str
    end_line: int = 0
    end_col: int = 0


@dataclass
class Document:
    path: str
    data: Any
    root: Node | None
    #: each problem as ``path:line:col: what``, in the order of the file
    problems: list[str] = field(default_factory=list)
    #: the same, with their spans (for an editor)
    found: list["Problem"] = field(default_factory=list)

    def problem(self, where: tuple, message: str) -> None:
        node = self.root.at(where) if self.root is not None else None
        if node is None and where and self.root is not None:
            node = self.root.at(where[:-1])
        self._add(node, message)

    def key_problem(self, where: tuple, key: str, message: str) -> None:
        """A problem at a mapping's key (``where`` is the mapping)."""
        mapping = self.root.at(where) if self.root is not None else None
        node = mapping.key_node(key) if mapping is not None and mapping.is_map() else None
        if node is None:
            self.problem((*where, key), message)
        else:
            self._add(node, message)

    def _add(self, node: Node | None, message: str) -> None:
        line, col = (node.start.line, node.start.col) if node is not None else (1, 1)
        end = (node.end.line, node.end.col) if node is not None else (1, 1)
        self.found.append(Problem(line, col, message, *end))
        self.found = sorted(dict.fromkeys(self.found), key=lambda f: (f.line, f.col, f.message))
        self.problems = [f"{self.path}:{f.line}:{f.col}: {f.message}" for f in self.found]


def read(path: Path, limits: Limits = DEFAULT_LIMITS, text: str | None = None) -> Document:
    """The file's data through the document stage's limits, or ``FileProblems``; ``text`` is
    the file's text when it is not on disk yet (an editor's buffer)."""
    shown = str(path)
    if text is None:
        try:
            size = path.stat().st_size
            if size > limits.file_bytes:
                raise FileProblems([f"{shown}: the file is {size} bytes, over the {limits.file_bytes}-byte limit (WF007)"])
            raw = path.read_bytes()
        except OSError as exc:
            raise FileProblems([f"{shown}: cannot be read: {exc.strerror or exc}"]) from None
    else:
        raw = text.encode("utf-8")
        if len(raw) > limits.file_bytes:
            raise FileProblems([f"{shown}: the file is {len(raw)} bytes, over the {limits.file_bytes}-byte limit (WF007)"])
    source, problems = decode(raw, shown)
    if source is None:
        raise _parse_problems(problems)
    result = parse(source, limits=limits)
    errors = [d for d in result.diagnostics if d.severity == "error" and d.code != "WF002"]
    if errors or result.root is None:
        if not errors:
            raise FileProblems([f"{shown}: the file holds no document"], [Problem(1, 1, "the file holds no document")])
        raise _parse_problems(errors)
    return Document(shown, result.root.to_data(), result.root)


def _parse_problems(diags: list[Any]) -> FileProblems:
    return FileProblems([f"{d.path}:{d.line}:{d.column}: {d.message} ({d.code})" for d in diags],
                        [Problem(d.line, d.column, f"{d.message} ({d.code})", d.end_line, d.end_column) for d in diags])


def did_you_mean(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _where(path: tuple) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the file"


def validate(doc: Document, schema: dict[str, Any], base: tuple = ()) -> None:
    """Schema problems of ``doc.data`` at ``base`` (unknown keys with a did-you-mean)."""
    instance = doc.root.at(base).to_data() if base and doc.root is not None else doc.data
    for error in sorted(Draft202012Validator(schema).iter_errors(instance), key=lambda e: list(map(str, e.absolute_path))):
        path = (*base, *error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = list((error.schema.get("properties") or {}))
            for key in [k for k in error.instance if k not in known]:
                hint = did_you_mean(key, known) or (f" (known: {', '.join(known)})" if known else "")
                doc.key_problem(path, key, f"{_where(path)}: unknown key {key!r}{hint}")
            continue
        if error.validator == "oneOf":
            best = min(error.context, key=lambda e: len(list(e.absolute_path)), default=None) if error.context else None
            kinds = " or ".join(_kind(s.get("type", "a value")) for s in error.validator_value)
            doc.problem(path, f"{_where(path)}: expected {kinds}, got {_type(error.instance)}"
                        + (f" ({best.message})" if best is not None and best.validator != "type" else ""))
            continue
        if error.validator == "type":
            doc.problem(path, f"{_where(path)}: expected {_kind(error.validator_value)}, got {_type(error.instance)}")
            continue
        doc.problem(path, f"{_where(path)}: {error.message}")


def _kind(value: Any) -> str:
    names = {"object": "a mapping", "array": "a list", "string": "text", "integer": "an integer",
             "number": "a number", "boolean": "true or false", "null": "null"}
    values = value if isinstance(value, list) else [value]
    return " or ".join(names.get(v, str(v)) for v in values)


def _type(value: Any) -> str:
    for kind, name in ((bool, "true or false"), (dict, "a mapping"), (list, "a list"), (str, "text"),
                       (int, "an integer"), (float, "a number"), (type(None), "null")):
        if isinstance(value, kind):
            return name
    return type(value).__name__


# --------------------------------------------------------------------------- against the workflow


@dataclass
class WorkflowNames:
    """The names a case may use: block labels with their types, and parameter keys."""

    blocks: dict[str, str] = field(default_factory=dict)
    parameters: list[str] = field(default_factory=list)
    secrets: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, request: dict[str, Any]) -> "WorkflowNames":
        names = cls()
        definition = request.get("workflow_definition") if isinstance(request, dict) else None
        definition = definition if isinstance(definition, dict) else {}

        def walk(blocks: Any) -> None:
            for block in blocks if isinstance(blocks, list) else []:
                if isinstance(block, dict) and isinstance(block.get("label"), str):
                    names.blocks[block["label"]] = str(block.get("block_type"))
                    walk(block.get("loop_blocks"))

        walk(definition.get("blocks"))
        for param in definition.get("parameters") or []:
            if not isinstance(param, dict) or not isinstance(param.get("key"), str):
                continue
            if param.get("parameter_type", "workflow") == "workflow":
                names.parameters.append(param["key"])
            if secrets.secret_kind(param) is not None:
                names.secrets[param["key"]] = secrets.type_name(param)
        return names


_ITERATION = re.compile(r"(.+)\[(\d+)\]")


def check_names(doc: Document, case: dict[str, Any], where: tuple, names: WorkflowNames) -> None:
    """Stubs, expectations and parameters of one case that name nothing in the workflow."""
    if not isinstance(case, dict):
        return
    labels = list(names.blocks)

    def label(table_path: tuple, key: Any, allowed: frozenset[str] | None, what: str) -> None:
        spec = str(key)
        found = _ITERATION.fullmatch(spec)
        name = found.group(1) if found else spec
        if name not in names.blocks:
            doc.key_problem(table_path, key, f"{_where(table_path)}: {name!r} names no block of the workflow"
                            + (did_you_mean(name, labels) or f" (its blocks: {', '.join(labels) or 'none'})"))
        elif allowed is not None and names.blocks[name] not in allowed:
            doc.key_problem(table_path, key, f"{_where(table_path)}: {name!r} is a {names.blocks[name]} block; "
                            f"{what} stand in for {', '.join(sorted(allowed))} blocks")

    for table, allowed in STUB_TYPES.items():
        if isinstance(case.get(table), dict):
            for key in case[table]:
                label((*where, table), key, allowed, f"{table}: stubs")
    for key in case.get("parameters") or {} if isinstance(case.get("parameters"), dict) else {}:
        if key not in names.parameters and key not in names.secrets:  # a secret's value may come here too
            doc.key_problem((*where, "parameters"), key, f"{_where((*where, 'parameters'))}: {key!r} is no workflow "
                            "parameter of the workflow" + (did_you_mean(key, names.parameters)
                                                            or f" (its parameters: {', '.join(names.parameters) or 'none'})"))
    for key in case.get("secrets") or {} if isinstance(case.get("secrets"), dict) else {}:
        if key not in names.secrets:
            doc.key_problem((*where, "secrets"), key, f"{_where((*where, 'secrets'))}: {key!r} is no secret-bearing "
                            "parameter of the workflow" + (did_you_mean(key, list(names.secrets))
                                                            or f" (its secrets: {', '.join(names.secrets) or 'none'})"))
    expect = case.get("expect") if isinstance(case.get("expect"), dict) else {}
    for table in ("blocks", "inputs"):
        if isinstance(expect.get(table), dict):
            for key in expect[table]:
                label((*where, "expect", table), key, None, "")
    for table in ("visits", "does_not_visit", "path"):
        if isinstance(expect.get(table), list):
            for index, item in enumerate(expect[table]):
                if isinstance(item, str) and item not in names.blocks:
                    doc.problem((*where, "expect", table, index),
                                f"{_where((*where, 'expect', table, index))}: {item!r} names no block of the workflow"
                                + did_you_mean(item, labels))
    for index, request in enumerate(expect.get("requests") or [] if isinstance(expect.get("requests"), list) else []):
        if isinstance(request, dict) and isinstance(request.get("block"), str):
            block = request["block"]
            if names.blocks.get(block) != "http_request":
                doc.problem((*where, "expect", "requests", index, "block"),
                            f"{_where((*where, 'expect', 'requests', index, 'block'))}: {block!r} is no http_request block"
                            + did_you_mean(block, [k for k, v in names.blocks.items() if v == "http_request"]))
