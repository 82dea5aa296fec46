"""WF012: rewrite the service's stored form of a workflow into the request it came from.

The target data is ``workflow.stored_form.to_request``. The file is brought to it by edits of
its own text, so comments and layout elsewhere survive: server-written entries and items are
deleted (whole lines in block YAML, with their comma in JSON and flow style), a renamed field
(``parameters`` objects → ``parameter_keys``, ``loop_over`` → ``loop_over_parameter_key``,
``source`` → ``source_parameter_key``) gets its request name and a value in flow style. The
result is parsed again and must read as exactly the target; if it does not, the document is
written out whole (JSON with two-space indents, YAML block style) and a note says that
comments could not be kept.
"""

from __future__ import annotations

import json
from typing import Any

from ..document.nodes import Node
from ..document.parse import parse
from ..document.source import SourceFile
from ..workflow.stored_form import is_stored_form, to_request
from .edits import _same
from .results import FixResult

CODE = "WF012"


def convert_stored(text: str, path: str, fmt: str) -> FixResult | None:
    """The request form of ``text`` when it holds a stored workflow; None otherwise."""
    parsed = parse(SourceFile(text, path), fmt)
    root = parsed.root
    if root is None or root.kind != "map" or not is_stored_form(root):
        return None
    target = to_request(root.to_data())
    edits: list[tuple[int, int, str]] = []
    _reshape(text, root, target, edits, fmt)
    new_text = _apply(text, edits)
    notes: list[str] = []
    if not _reads_as(new_text, path, fmt, target):
        new_text = _dump(target, fmt)
        notes.append("line 1: the stored form was rewritten whole; comments in it could not be kept (WF012)")
    change = "line 1: rewrote the service's stored form as a request: dropped the fields only the service writes (WF012)"
    return FixResult(new_text, [change], notes)


def _reads_as(text: str, path: str, fmt: str, target: Any) -> bool:
    parsed = parse(SourceFile(text, path), fmt)
    return parsed.root is not None and not any(d.severity == "error" for d in parsed.diagnostics) and _same(
        parsed.root.to_data(), target)


def _dump(data: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    import yaml

    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    out, last = [], 0
    for start, end, new in sorted(edits):
        if start < last:
            continue  # a nested edit inside a removed span
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


#: stored field → request field, where the service renamed it (values become keys)
RENAMED = {"parameters": "parameter_keys", "loop_over": "loop_over_parameter_key", "source": "source_parameter_key"}


def _reshape(text: str, node: Node, target: Any, edits: list[tuple[int, int, str]], fmt: str) -> None:
    removed: list[int] = []
    if node.kind == "map" and isinstance(target, dict):
        keys = node.keys()
        for i, (k, v) in enumerate(node.pairs):
            if k.value in target:
                _reshape(text, v, target[k.value], edits, fmt)
                continue
            renamed = _renamed_key(k.value, target, keys)
            if renamed is None:
                removed.append(i)
                continue
            # key and value in one edit, the value in flow style on the key's line
            key = json.dumps(renamed) if fmt == "json" else renamed
            tail = "\n" if text[v.end.offset - 1:v.end.offset] == "\n" else ""
            edits.append((k.start.offset, v.end.offset, f"{key}: {json.dumps(target[renamed], ensure_ascii=False)}{tail}"))
        edits.extend(_removals(text, node, node.pairs, removed))
    elif node.kind == "seq" and isinstance(target, list):
        j = 0
        for i, item in enumerate(node.items):
            if j < len(target) and _same_identity(item, target[j]):
                _reshape(text, item, target[j], edits, fmt)
                j += 1
            else:
                removed.append(i)
        edits.extend(_removals(text, node, node.items, removed))
    elif node.kind == "scalar" and not _same(node.value, target):
        edits.append((node.start.offset, node.end.offset, json.dumps(target, ensure_ascii=False)))


def _renamed_key(key: Any, target: dict[str, Any], keys: list[Any]) -> str | None:
    new = RENAMED.get(key) if isinstance(key, str) else None
    if new is None and isinstance(key, str):  # SMTP slots: smtp_host → smtp_host_secret_parameter_key
        new = next((t for t in target if isinstance(t, str) and t.startswith(key + "_") and t.endswith("_parameter_key")), None)
    return new if new is not None and new in target and new not in keys else None


def _same_identity(item: Node, target: Any) -> bool:
    """Whether a stored item is the one ``target`` was made from (same key or label)."""
    if item.kind == "map" and isinstance(target, dict):
        for field in ("key", "label"):
            if field in target:
                node = item.get(field)
                return node is not None and node.value == target[field]
        return True
    return _same(item.to_data(), target)


def _is_flow(text: str, container: Node) -> bool:
    return text[container.start.offset:container.start.offset + 1] in ("{", "[")


def _start_of(entry: Any) -> int:
    return (entry[0] if isinstance(entry, tuple) else entry).start.offset


def _end_of(entry: Any) -> int:
    return (entry[1] if isinstance(entry, tuple) else entry).end.offset


def _removals(text: str, container: Node, entries: list, removed: list[int]) -> list[tuple[int, int, str]]:
    """The edits that delete ``entries[i]`` for each ``i`` in ``removed``."""
    if not removed:
        return []
    if not _is_flow(text, container):
        # a run of neighbours goes in one edit: the first key of a "- key: value" item is cut
        # up to the next key, which would overlap the next removal's whole line
        out = []
        for run in _runs(sorted(removed)):
            start, end, _ = _remove_block(text, entries, run[0])
            if len(run) > 1:
                last_end = _remove_block(text, entries, run[-1])[1]
                after = run[-1] + 1
                end = _start_of(entries[after]) if end == _start_of(entries[run[0] + 1]) and after < len(entries) \
                    else last_end
            out.append((start, end, ""))
        return out
    # flow style and JSON: an entry goes with the comma after it; a trailing run goes with
    # the comma before it (from the end of the last entry kept)
    kept = [i for i in range(len(entries)) if i not in removed]
    tail_start = (kept[-1] + 1) if kept else 0
    out = [(_start_of(entries[i]), _start_of(entries[i + 1]), "") for i in removed if i < tail_start]
    if tail_start < len(entries):
        begin = _end_of(entries[kept[-1]]) if kept else _start_of(entries[0])
        out.append((begin, _end_of(entries[-1]), ""))
    return out


def _remove_block(text: str, entries: list, i: int) -> tuple[int, int, str]:
    """The edit that deletes entry ``i`` (a (key, value) pair or an item) of a block collection."""
    first = entries[i][0] if isinstance(entries[i], tuple) else entries[i]
    last = entries[i][1] if isinstance(entries[i], tuple) else entries[i]
    # block style: whole lines, from the start of the entry's line (its "- " included for an
    # item) to the start of the line after it
    line_start = text.rfind("\n", 0, first.start.offset) + 1
    prefix = text[line_start:first.start.offset]
    is_item = not isinstance(entries[i], tuple)
    if prefix.strip() and not (is_item and prefix.strip() == "-"):
        # the first key of a "- key: value" item: keep the dash, remove up to the next key
        if i + 1 < len(entries):
            return first.start.offset, _start_of(entries[i + 1]), ""
        return first.start.offset, last.end.offset, ""
    end = last.end.offset
    if end > 0 and text[end - 1] != "\n":
        newline = text.find("\n", end)
        end = len(text) if newline < 0 else newline + 1
    return line_start, end, ""


def _runs(indices: list[int]) -> list[list[int]]:
    """Consecutive runs of sorted indices: [1, 2, 4] -> [[1, 2], [4]]."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs
