"""Unsafe fixes (``wflint fix --unsafe-fixes``): rename a name to the one name it is a near miss of.

ruff's convention: a fix is *unsafe* when it changes what the service stores. These do: a
misspelt key (WF109) becomes the field it misspells, and a ``next_block_label`` (WF202), a
``parameter_keys`` entry (WF205) or a template variable (WF402) that names nothing becomes the
one existing name the finding suggests ("did you mean 'x'?", read back with
``checks.intent.suggested_name``). Where the finding offers several names, or none, nothing is
renamed.

Only a file that is itself the request is fixed (not an update body's embedded definitions),
and a key is not renamed when the mapping already has the field it would become (the author
must choose which value to keep; a note says so). Each fix is a splice like the safe ones, and
the result is parsed again and must read as exactly the intended data (``edits._verify``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..checks.intent import suggested_name
from ..document.nodes import Node
from ..document.source import SourceFile
from ..document.string_offsets import value_offsets
from .document import _Doc, _documents, _format_of
from .edits import _Edit, _Fixer, _string_edit, _Unsafe
from .templates import _names_pattern, _template_subs

#: the findings whose suggestion is a rename, and what each renames
KINDS = {"WF109": "key", "WF202": "label reference", "WF205": "parameter key", "WF402": "template variable"}
CODES = tuple(KINDS)
_QUOTED_NAME = re.compile(r"^'([^']+)'")


@dataclass
class IntentFix:
    code: str
    old: str
    new: str
    #: (start, end) offsets of the node the finding points at
    anchor: tuple[int, int]
    title: str


def _nodes(root: Node):
    """Every scalar node, keys included, with the mapping that holds a key."""
    todo = [root]
    while todo:
        node = todo.pop()
        if node.kind == "map":
            for k, v in node.pairs:
                if k.kind == "scalar":
                    yield k, node
                todo.append(v)
        elif node.kind == "seq":
            todo.extend(node.items)
        else:
            yield node, None


def intent_fixes(fixer: _Fixer, diagnostics) -> list[IntentFix]:
    """Add to ``fixer`` the renames the ``diagnostics`` of its document suggest; return them."""
    doc = fixer.doc
    if doc.holder is not None:
        return []
    keys: dict[int, tuple[Node, Node]] = {}
    values: list[Node] = []
    for node, owner in _nodes(doc.root):
        if owner is not None:
            keys[node.start.offset] = (node, owner)
        else:
            values.append(node)
    by_start = {n.start.offset: n for n in values}
    out: list[IntentFix] = []
    for d in diagnostics:
        new = suggested_name(d.help) if d.code in KINDS else None
        if new is None:
            continue
        try:
            fix = _one(fixer, d, new, keys, by_start, values)
        except _Unsafe as exc:
            fixer.note(_any(keys, by_start, d.offset) or doc.root, f"not renamed ({d.code}): {exc}")
            continue
        if fix is not None:
            out.append(fix)
    return out


def _any(keys, by_start, offset):
    hit = keys.get(offset)
    return hit[0] if hit else by_start.get(offset)


def _one(fixer: _Fixer, d, new: str, keys, by_start, values) -> IntentFix | None:
    doc = fixer.doc
    if d.code == "WF109":
        hit = keys.get(d.offset)
        if hit is None or not isinstance(hit[0].value, str) or id(hit[0]) in fixer.edits:
            return None
        node, owner = hit
        old = node.value
        if owner.get(new) is not None:
            fixer.note(node, f"'{old}' looks like '{new}' misspelt, but '{new}' is set too; not renamed "
                             "(keep the value you mean and delete the other)")
            return None
        return _whole(fixer, d.code, node, old, new, f"renamed misspelt key '{old}' → '{new}'")
    if d.code in ("WF202", "WF205"):
        node = by_start.get(d.offset)
        if node is None or not isinstance(node.value, str) or id(node) in fixer.edits:
            return None
        what = "next_block_label" if d.code == "WF202" else "parameter_keys entry"
        return _whole(fixer, d.code, node, node.value, new, f"{what} '{node.value}' → '{new}'")
    # WF402: a variable inside a templated string
    m = _QUOTED_NAME.match(d.message)
    node = next((n for n in values if n.start.offset <= d.offset < n.end.offset and n.is_str()), None)
    if m is None or node is None or id(node) in fixer.edits:
        return None
    old = m.group(1)
    offsets = value_offsets(doc.source, node)
    if d.offset not in offsets or node.value[offsets.index(d.offset):].find(old) != 0:
        return None
    subs = _template_subs(node.value, _names_pattern({old: new}), {old: new})
    if not subs:
        return None
    from .edits import _apply_subs

    value = _apply_subs(node.value, subs)
    splices = _string_edit(doc, node, node.value, value, subs, fixer.conservative)
    message = f"template variable '{old}' → '{new}'"
    fixer.edits[id(node)] = _Edit(node, value, splices, splices[0][0] if splices else node.start.offset,
                                  message, d.code)
    return IntentFix(d.code, old, new, (node.start.offset, node.end.offset),
                     f"Rename '{old}' to '{new}' in this template")


def _whole(fixer: _Fixer, code: str, node: Node, old: str, new: str, message: str) -> IntentFix:
    splices = _string_edit(fixer.doc, node, old, new, [(0, len(old), new)], fixer.conservative)
    fixer.edits[id(node)] = _Edit(node, new, splices, splices[0][0] if splices else node.start.offset, message, code)
    what = {"WF109": "key", "WF202": "next_block_label", "WF205": "parameter_keys entry"}[code]
    return IntentFix(code, old, new, (node.start.offset, node.end.offset), f"Rename {what} '{old}' to '{new}'")


def diagnostics_of(text: str, path: str) -> list:
    """wflint's findings for ``text`` with the default configuration (the library API)."""
    from ..api import check_text

    return [d for d in check_text(text, path) if d.code in KINDS]


def docs_of(text: str, path: str) -> tuple[object, list[_Doc]]:
    return _documents(SourceFile(text, path), _format_of(path, text))
