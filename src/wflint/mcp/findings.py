"""Diagnostics in an agent's terms: each finding with the JSON path of the value it is about,
the service's answer, and the fix as text edits and as changes to the data.

The fixes are ``wflint fix``'s, one by one (``fix.targeted.fixes``, as the language server's
quick fixes): a fix answers a finding when it is for the finding's rule and touches its place.
Each fix is given two ways, both exact: ``edits`` (character offsets and line/column spans of
the text and their new text; apply them from the last to the first) and ``changes`` (set the
value at a JSON path, or rename the key at one), read back from the edited text.
"""

from __future__ import annotations

import json
from typing import Any

from ..core.diagnostics import Diagnostic
from ..document.nodes import Node
from ..document.parse import parse
from ..document.source import SourceFile
from .json_paths import Place, Step, json_path, json_pointer, place_at

#: a change's value longer than this (as JSON) is left out: the edits carry it
MAX_VALUE_CHARS = 4000
#: a message or suggestion is cut at this length
MAX_TEXT_CHARS = 2000
#: the rule whose fix (wrapping a definition) the editors' fixes leave to ``wflint fix``
WRAP_CODE = "WF013"


def _cut(text: str | None, most: int = MAX_TEXT_CHARS) -> str | None:
    if text is None or len(text) <= most:
        return text
    return text[: most - 1] + "…"


def finding(d: Diagnostic, source: SourceFile, root: Node | None, inner: list[Node],
            fix: dict[str, Any] | None) -> dict[str, Any]:
    """One diagnostic as the ``check`` tool reports it."""
    start = _offset(source, d.line, d.column, d.offset)
    empty = (d.line, d.column) == (d.end_line, d.end_column)
    place = place_at(root, start, inner, empty=empty) if root is not None else Place([], False)
    return {
        "code": d.code, "name": d.name, "severity": d.severity,
        "message": _cut(d.message), "suggestion": _cut(d.help),
        "line": d.line, "column": d.column, "end_line": d.end_line, "end_column": d.end_column,
        "json_path": json_path(place.steps), "json_pointer": json_pointer(place.steps), "at_key": place.in_key,
        "service": None if d.service is None else {"status": d.service.status, "detail": _cut(d.service.detail)},
        "fix": fix,
    }


def _offset(source: SourceFile, line: int, column: int, offset: int) -> int:
    if offset or (line, column) == (1, 1):
        return offset
    try:
        return source.offset(line, column)
    except (IndexError, ValueError):
        return 0


def fixes_for(diags: list[Diagnostic], source: SourceFile) -> dict[int, dict[str, Any]]:
    """The fix of each diagnostic that has one, by its index in ``diags``."""
    from ..fix import FixError, FixInternalError
    from ..fix.intent import CODES as UNSAFE_CODES
    from ..fix.targeted import FIXABLE_CODES, fixes

    if not any(d.code in FIXABLE_CODES or d.code == WRAP_CODE for d in diags):
        return {}
    try:
        available = fixes(source.text, source.path) + _wrapping(diags, source)
    except (FixError, FixInternalError):
        return {}
    out: dict[int, dict[str, Any]] = {}
    cache: dict[int, dict[str, Any]] = {}
    for i, d in enumerate(diags):
        start = _offset(source, d.line, d.column, d.offset)
        end = _end_offset(source, d, start)
        for f in available:
            a, b = f.anchor
            if d.code in f.codes and (a <= start <= b or start <= a <= end):
                if id(f) not in cache:
                    safety = "unsafe" if d.code in UNSAFE_CODES and f.codes == (d.code,) else "safe"
                    cache[id(f)] = {"id": len(cache) + 1, **described_fix(f.title, safety, f.splices, source)}
                out[i] = cache[id(f)]
                break
    return out


def _wrapping(diags: list[Diagnostic], source: SourceFile) -> list:
    """WF013's fix, which ``wflint fix`` makes first and the editors' fixes leave out: the
    definition wrapped under ``workflow_definition``, as one edit of the whole text."""
    from ..fix.targeted import EditorFix
    from ..fix.wrap import wrap_definition

    if not any(d.code == WRAP_CODE for d in diags):
        return []
    wrapped = wrap_definition(source.text, source.path, parse(source).format)
    if wrapped is None:
        return []
    whole = (0, len(source.text))
    return [EditorFix((WRAP_CODE,), "Put the definition under workflow_definition", whole,
                      [(0, len(source.text), wrapped.text)])]


def _end_offset(source: SourceFile, d: Diagnostic, start: int) -> int:
    try:
        return max(start, source.offset(d.end_line, d.end_column))
    except (IndexError, ValueError):
        return start


def described_fix(title: str, safety: str, splices: list[tuple[int, int, str]], source: SourceFile) -> dict[str, Any]:
    """A fix as edits of the text and as changes of the data."""
    text = source.text
    edits = []
    for a, b, new in sorted(splices, reverse=True):
        s, e = source.pos(a), source.pos(b)
        edits.append({"start_offset": a, "end_offset": b, "start_line": s.line, "start_column": s.col,
                      "end_line": e.line, "end_column": e.col, "new_text": new})
    new_text = text
    for a, b, new in sorted(splices, reverse=True):
        new_text = new_text[:a] + new + new_text[b:]
    return {"title": title, "safety": safety, "edits": edits, "changes": data_changes(source, new_text, splices)}


def data_changes(source: SourceFile, new_text: str, splices: list[tuple[int, int, str]]) -> list[dict[str, Any]]:
    """What the edits change, as an agent editing data would say it: the value set at a JSON
    path, or a key renamed. A string holding an embedded definition (``yaml_definition``) is
    one value here: its new text is given whole."""
    old_root = parse(source).root
    new_root = parse(SourceFile(new_text, source.path)).root
    if old_root is None or new_root is None:
        return []
    out: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    for a, b, _new in sorted(splices):
        # an edit of the whole document (a definition wrapped, a stored form converted) changes $
        whole = a <= old_root.start.offset and b >= old_root.end.offset
        place = Place([], False) if whole else place_at(old_root, a)
        key = (tuple(place.steps), place.in_key)
        if key in seen:
            continue
        seen.add(key)
        change = _change(old_root, new_root, place)
        if change is not None:
            out.append(change)
    return out


def _change(old_root: Node, new_root: Node, place: Place) -> dict[str, Any] | None:
    steps = place.steps
    where = {"json_path": json_path(steps), "json_pointer": json_pointer(steps)}
    if place.in_key:
        old_parent, new_parent = old_root.at(tuple(steps[:-1])), _at(new_root, steps[:-1])
        if old_parent is None or new_parent is None or old_parent.kind != "map" or new_parent.kind != "map":
            return None
        index = next((i for i, (k, _) in enumerate(old_parent.pairs) if k.value == steps[-1]), None)
        if index is None or index >= len(new_parent.pairs):
            return None
        return {"op": "rename_key", **where, "new_key": new_parent.pairs[index][0].value}
    node = _at(new_root, steps)
    if node is None:
        return None
    value = node.to_data()
    shown = json.dumps(value, default=str, ensure_ascii=False)
    if len(shown) > MAX_VALUE_CHARS:
        return {"op": "replace", **where, "value": None, "value_omitted": True}
    return {"op": "replace", **where, "value": value}


def _at(root: Node, steps: list[Step]) -> Node | None:
    return root.at(tuple(steps))
