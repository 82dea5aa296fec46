"""The language server on ``*.test.yaml`` files: what ``wflint test`` would refuse in them (as
diagnostics), completion of their keys, of the workflow's labels and parameter keys, and hovers
that explain each key. One source: the test-file schema (``model.test_file``) and the checks of
``simulate.testfile`` / ``simulate.suite``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from ..document.nodes import Node
from ..document.parse import parse
from ..document.source import SourceFile
from ..model.test_file import TEST_FILE
from .diagnostics import from_wire
from .documents import TEST_FILE_SUFFIXES as TEST_SUFFIXES, Document, is_test_file_path, locate

_PROBE = "wflint_test_completion_probe"
_KEY_LINE = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][A-Za-z0-9_]*)?$")
#: mappings keyed by a block label, and by a parameter key
_LABEL_MAPS = frozenset({"blocks", "tasks", "llm", "prompt_branches", "inputs"})


def is_test_path(path: str) -> bool:
    return is_test_file_path(path)


def diagnostics(doc: Document) -> list[lsp.Diagnostic]:
    """What ``wflint test`` reports about the file before running a case, at its places."""
    from ..simulate.suite import problems_in

    wire = []
    for problem in problems_in(Path(doc.path), doc.text):
        start = doc.source.offset(problem.line, problem.col)
        end = doc.source.offset(problem.end_line, problem.end_col) if problem.end_line else start
        wire.append({"range": doc.lines.span(start, end), "message": problem.message, "severity": 1,
                     "source": "wflint test"})
    return from_wire(wire)


def schema_at(path: tuple) -> dict[str, Any] | None:
    """The part of the test-file schema that describes the value at ``path``."""
    schema: dict[str, Any] | None = TEST_FILE
    for part in path:
        if schema is None:
            return None
        options = [schema, *[o for o in schema.get("oneOf", []) if isinstance(o, dict)]]
        found = None
        for option in options:
            if isinstance(part, int) and isinstance(option.get("items"), dict):
                found = option["items"]
            elif isinstance(part, str) and part in (option.get("properties") or {}):
                found = option["properties"][part]
            elif isinstance(part, str) and isinstance(option.get("additionalProperties"), dict):
                found = option["additionalProperties"]
            if found is not None:
                break
        schema = found
    return schema


def _names(doc: Document, data: Any) -> tuple[dict[str, str], list[str], list[str]]:
    """The tested workflow's labels (with types), parameter keys and secret keys, if it loads."""
    from ..simulate.loading import LoadError, load_workflow
    from ..simulate.suite import workflow_for
    from ..simulate.testfile import WorkflowNames

    try:
        workflow = load_workflow(workflow_for(Path(doc.path), data if isinstance(data, dict) else {}))
    except (LoadError, OSError):
        return {}, [], []
    names = WorkflowNames.of(workflow.request)
    return names.blocks, names.parameters, list(names.secrets)


def complete(doc: Document, offset: int) -> lsp.CompletionList:
    line_start = doc.text.rfind("\n", 0, offset) + 1
    before = doc.text[line_start:offset]
    typed = _KEY_LINE.match(before)
    if typed is None:
        return lsp.CompletionList(is_incomplete=False, items=[])
    line_end = doc.text.find("\n", offset)
    line_end = len(doc.text) if line_end < 0 else line_end
    probe = doc.text[:line_start] + f"{typed.group(1)}{typed.group(2) or ''}{_PROBE}: 0" + doc.text[line_end:]
    root = parse(SourceFile(probe, doc.path), "yaml").root
    path = _probe_path(root) if root is not None else None
    if path is None:
        return lsp.CompletionList(is_incomplete=False, items=[])
    parent = path[:-1]
    mapping = root.at(parent)
    present = {k for k in (mapping.keys() if mapping is not None and mapping.is_map() else []) if k != _PROBE}
    items: list[lsp.CompletionItem] = []
    last = next((p for p in reversed(parent) if isinstance(p, str)), None)
    if last in _LABEL_MAPS or last in ("parameters", "secrets"):
        labels, params, secret_keys = _names(doc, root.to_data())
        if last in ("parameters", "secrets"):
            keys = params if last == "parameters" else secret_keys
            items = [lsp.CompletionItem(label=k, kind=lsp.CompletionItemKind.Variable, insert_text=f"{k}: ",
                     detail=f"{'secret-bearing ' if last == 'secrets' else ''}parameter of the workflow")
                     for k in keys if k not in present]
        else:
            from ..simulate.testfile import STUB_TYPES

            # a stub table takes the blocks it stands in for; an expectation any block
            allowed = None if "expect" in parent else STUB_TYPES.get(last)
            items = [lsp.CompletionItem(label=k, kind=lsp.CompletionItemKind.Reference, insert_text=f"{k}: ",
                                        detail=f"{kind} block") for k, kind in labels.items()
                     if k not in present and (allowed is None or kind in allowed)]
        return lsp.CompletionList(is_incomplete=False, items=items)
    schema = schema_at(parent)
    for option in [schema or {}, *[o for o in (schema or {}).get("oneOf", []) if isinstance(o, dict)]]:
        for key, sub in (option.get("properties") or {}).items():
            if key in present or any(i.label == key for i in items):
                continue
            items.append(lsp.CompletionItem(
                label=key, kind=lsp.CompletionItemKind.Property, insert_text=f"{key}: ",
                detail="required" if key in (option.get("required") or []) else None,
                documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=sub.get("description", ""))))
    return lsp.CompletionList(is_incomplete=False, items=items)


def _probe_path(root: Node) -> tuple | None:
    stack: list[tuple[tuple, Node]] = [((), root)]
    while stack:
        path, node = stack.pop()
        if node.kind == "map":
            for key, value in node.pairs:
                if key.value == _PROBE:
                    return (*path, _PROBE)
                stack.append(((*path, key.value), value))
        elif node.kind == "seq":
            stack.extend(((*path, i), item) for i, item in enumerate(node.items))
    return None


def hover(doc: Document, offset: int) -> lsp.Hover | None:
    """A key's meaning, from the schema; a label's block type, from the workflow."""
    root = doc.parsed.root
    found = locate(root, offset) if root is not None else None
    if found is None or not found[2]:
        return None
    path, node, _ = found
    parent = next((p for p in reversed(path[:-1]) if isinstance(p, str)), None)
    if parent in _LABEL_MAPS:
        labels, _params, _secrets = _names(doc, root.to_data())
        name = re.sub(r"\[\d+\]$", "", str(path[-1]))
        text = f"`{name}`: a {labels[name]} block of the workflow" if name in labels else f"`{name}` names no block of the workflow"
    else:
        schema = schema_at(path)
        if not schema or not schema.get("description"):
            return None
        text = f"`{path[-1]}`: {schema['description']}"
    start, end = node.start.offset, node.end.offset
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                     range=doc.lines.range(start, end))
