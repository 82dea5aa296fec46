"""WF013: put a request's definition under ``workflow_definition``, as its author meant.

``workflow.wrapper`` finds the layout (flat, renamed, nested) and the request meant. The file
is brought to it by edits of its own text where the layout allows (block-style YAML: the flat
definition keys move, indented, under a new ``workflow_definition:`` key where the first of
them stood; a renamed key is renamed; a request nested alone under one key is dedented), so
comments survive; JSON, flow style and anything the edits do not reproduce exactly are
written out whole, with the keys in their order. A missing title becomes the file's name
(the service requires one; the change line says so, for the author to adjust).
"""

from __future__ import annotations

import json
import re
from pathlib import PurePath
from typing import Any

from ..document.nodes import Node
from ..document.parse import parse
from ..document.source import SourceFile
from ..workflow import wrapper
from .edits import _same
from .results import FixResult
from .stored import _apply, _dump

CODE = "WF013"


def wrap_definition(text: str, path: str, fmt: str) -> FixResult | None:
    """The wrapped request of ``text`` when its definition is not under ``workflow_definition``."""
    parsed = parse(SourceFile(text, path), fmt)
    root = parsed.root
    if root is None or any(d.code == "WF001" for d in parsed.diagnostics):
        return None
    found = wrapper.find(root)
    if found is None:
        return None
    title = None if found.has_title or _meant_title(found) else PurePath(path).stem
    target = found.meant.to_data()
    if title is not None:
        target["title"] = title
    new_text = None
    if found.layout == "renamed" and found.key is not None and title is None:
        key = json.dumps(wrapper.REQUEST_KEY) if fmt == "json" else wrapper.REQUEST_KEY
        new_text = _apply(text, [(found.key.start.offset, found.key.end.offset, key)])
    elif fmt == "yaml" and text[root.start.offset:root.start.offset + 1] != "{":
        new_text = _edit_yaml(text, root, found, title)
    if new_text is None or not _reads_as(new_text, path, fmt, target):
        new_text = _dump(target, fmt) if fmt == "yaml" else _dump_json(target, text)
    what = {"flat": "moved the definition's keys under workflow_definition",
            "renamed": f"renamed {found.key.value!r} to workflow_definition" if found.key is not None else "",
            "nested": f"lifted the request out of {found.key.value!r}" if found.key is not None else ""}[found.layout]
    line = (found.key or root).start.line
    changes = [f"line {line}: {what} ({CODE})"]
    if title is not None:
        changes.append(f"line 1: added the title {title!r} (the file's name), which the service requires ({CODE})")
    return FixResult(new_text, changes, [])


def _meant_title(found: wrapper.Wrapper) -> bool:
    """Whether the request meant has a title of the author's (not the empty placeholder)."""
    node = found.meant.get("title")
    return node is not None and node.end.offset > node.start.offset


def _reads_as(text: str, path: str, fmt: str, target: Any) -> bool:
    parsed = parse(SourceFile(text, path), fmt)
    if parsed.root is None or any(d.severity == "error" for d in parsed.diagnostics):
        return False
    data = parsed.root.to_data()
    return isinstance(data, dict) and _same(_without_order(data), _without_order(target))


def _without_order(data: dict) -> dict:
    return dict(sorted(data.items(), key=lambda kv: str(kv[0])))


def _dump_json(data: Any, text: str) -> str:
    match = re.search(r"\n([ \t]+)\S", text)
    indent = match.group(1) if match else "  "
    return json.dumps(data, indent=indent if "\t" in indent else len(indent), ensure_ascii=False) + "\n"


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _span(text: str, root: Node, i: int) -> tuple[int, int]:
    """The lines of the i-th pair of a block mapping, up to the next pair's line."""
    start = _line_start(text, root.pairs[i][0].start.offset)
    if i + 1 < len(root.pairs):
        return start, _line_start(text, root.pairs[i + 1][0].start.offset)
    end = root.pairs[i][1].end.offset
    if end > 0 and text[end - 1] != "\n":
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline + 1
    return start, end


def _indent(block: str, by: str) -> str:
    return "".join(by + line if line.strip() else line for line in block.splitlines(keepends=True))


def _edit_yaml(text: str, root: Node, found: wrapper.Wrapper, title: str | None) -> str | None:
    edits: list[tuple[int, int, str]] = []
    column = root.pairs[0][0].start.col - 1 if root.pairs else 0
    pad = " " * column
    if found.layout == "renamed" and found.key is not None:
        edits.append((found.key.start.offset, found.key.end.offset, wrapper.REQUEST_KEY))
    elif found.layout == "flat":
        defn_keys = {k.value for k, _ in found.meant.get(wrapper.REQUEST_KEY).pairs}  # type: ignore[union-attr]
        moved = [i for i, (k, _) in enumerate(root.pairs) if k.value in defn_keys]
        if not moved:
            return None
        block = "".join(text[slice(*_span(text, root, i))] for i in moved)
        if not block.endswith("\n"):
            block += "\n"
        first = _span(text, root, moved[0])[0]
        for n, i in enumerate(moved):
            start, end = _span(text, root, i)
            edits.append((start, end, f"{pad}{wrapper.REQUEST_KEY}:\n{_indent(block, '  ')}" if n == 0 else ""))
        assert first == edits[0][0]
    elif found.layout == "nested" and found.key is not None:
        if len(root.pairs) != 1 or found.meant.kind != "map" or not found.meant.pairs:
            return None
        inner = found.meant.pairs[0][0].start.col - 1
        start = _line_start(text, root.pairs[0][0].start.offset)
        body = text[_line_start(text, found.meant.start.offset):_span(text, root, 0)[1]]
        lines = body.splitlines(keepends=True)
        if any(line.strip() and not line.startswith(" " * inner) and not line.lstrip().startswith("#") for line in lines):
            return None
        edits.append((start, _span(text, root, 0)[1], "".join(line[inner:] if line.strip() else line for line in lines)))
    else:
        return None
    if title is not None:
        at = _line_start(text, root.pairs[0][0].start.offset)
        edits.append((at, at, f"{pad}title: {json.dumps(title, ensure_ascii=False)}\n"))
    return _apply(text, edits)
