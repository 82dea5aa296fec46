"""How fixes are written into the text, and how the result is checked.

Nothing is re-serialised: each change is a splice of the scalar's own source text at the
positions of wflint's YAML 1.1 / JSON parser, so comments, quoting, indentation, line width,
line endings and every untouched line stay byte-identical. A round trip through ruamel.yaml was
measured and rejected: even with the guessed indentation and an unlimited width it rewrites 567
of the 621 corpus files without any change (it joins folded plain scalars, drops ``~``,
normalises spacing). Within a string only the old name's characters are replaced when they
appear verbatim in the source; otherwise (a name split across lines of a folded scalar) the
whole scalar is rewritten as one double-quoted string. A plain scalar whose new value YAML 1.1
would read as a non-string (a label ``no-`` becomes ``no``) is quoted. Inside an embedded
``yaml_definition`` a splice must also leave the outer string reading the same.

Every result is checked before it is returned (``_verify``): the new text is parsed again and
must give exactly the intended data (every other value identical, with its type), else
``FixInternalError`` is raised and nothing is changed.

``_Fixer`` holds the edits of one document; ``quoting`` and ``renames`` fill it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any


from ..document.nodes import Node
from ..document.yaml_composer import resolve_plain
from ..document.source import SourceFile
from ..document.string_offsets import value_offsets
from .document import _Doc, _documents
from .results import FixError, FixInternalError

def _plain_reads_as_string(text: str) -> bool:
    return resolve_plain(text).endswith(":str")


class _Unsafe(Exception):
    """An edit cannot be written safely at its place (the caller skips the whole fix)."""


@dataclass
class _Edit:
    node: Node
    #: the value the node has after the fix
    value: Any
    #: (start, end, text) splices of the file text
    splices: list[tuple[int, int, str]]
    offset: int
    message: str
    code: str


class _Fixer:
    """The fixes of one document: ``quoting.quote_traps``, then ``renames.plan_renames`` and
    ``renames.rename``. ``edits`` holds the result, one per scalar node (by identity, so an
    anchored node is edited once)."""

    def __init__(self, doc: _Doc, notes: list[str], conservative: bool = False):
        self.doc = doc
        self.conservative = conservative
        self.notes = notes
        self.edits: dict[int, _Edit] = {}
        self.text = doc.source.text

    def where(self) -> str:
        return f" in {self.doc.holder}" if self.doc.holder else ""

    def note(self, node: Node, message: str) -> None:
        self.notes.append(f"line {node.start.line}: {message}{self.where()}")

    def value(self, node: Node) -> Any:
        """The node's value after the edits so far."""
        edit = self.edits.get(id(node))
        return edit.value if edit is not None else node.value

    def data(self) -> Any:
        """The document's data after the edits so far."""
        return _data_with(self.doc.root, {i: e.value for i, e in self.edits.items()})


# =========================================================================== splices


def _check_outer(doc: _Doc, text: str) -> None:
    """A splice inside an embedded yaml_definition must not change how the outer string reads."""
    if not doc.embedded:
        return
    if "\n" in text or "\r" in text:
        raise _Unsafe("a line break inside yaml_definition")
    style = doc.outer_style
    if style in ('"', "json"):
        if '"' in text or "\\" in text:
            raise _Unsafe("a quote inside the yaml_definition string")
    elif style == "'":
        if "'" in text:
            raise _Unsafe("a quote inside the yaml_definition string")
    elif style != "|":
        raise _Unsafe("yaml_definition is a plain or folded scalar")


def _quoted(doc: _Doc, value: str) -> str:
    """``value`` as one quoted scalar in the document's syntax."""
    if doc.syntax == "json":
        return json.dumps(value, ensure_ascii=False)
    if doc.embedded:
        if not value.isprintable() or any(c in value for c in "\"'\\"):
            raise _Unsafe("cannot quote this value inside yaml_definition")
        return doc.quote + value + doc.quote
    if value.isprintable() and not any(c in value for c in '"\\'):
        return '"' + value + '"'
    # a JSON string is a valid YAML double-quoted scalar; escape what is not printable
    # (U+2028 and friends are line breaks to YAML)
    return json.dumps(value, ensure_ascii=not value.isprintable())


def _string_edit(doc: _Doc, node: Node, old: str, new: str, subs: list[tuple[int, int, str]],
                 conservative: bool = False) -> list[tuple[int, int, str]]:
    """Splices that turn the scalar ``node`` (whose value is ``old``) into ``new``.

    1. Each substitution's characters sit verbatim in the source: only they are replaced.
    2. Otherwise, in a plain, quoted or JSON scalar, the source span from the first character
       of the old name to the start of the next character is replaced: the name was folded
       over a line break or written with escapes, and the new name needs neither.
    3. Otherwise (and always when ``conservative``), or when a plain scalar would stop reading
       as a string, the whole scalar is rewritten as one quoted string."""
    text = doc.source.text
    start, end = node.start.offset, node.end.offset
    plain = doc.syntax == "yaml" and node.style is None
    if not (plain and not _plain_reads_as_string(new)):
        offsets = value_offsets(doc.source, node)
        splices = []
        for a, b, repl in subs:
            x, y = offsets[a], offsets[b - 1] + 1
            contiguous = all(offsets[i + 1] == offsets[i] + 1 for i in range(a, b - 1))
            if contiguous and text[x:y] == old[a:b]:
                splices.append((x, y, repl))
                continue
            if conservative or node.style not in (None, '"', "'", "json"):
                break
            y = offsets[b]
            if not all(offsets[i] < offsets[i + 1] for i in range(a, b)) or not start <= x < y <= end:
                break
            splices.append((x, y, repl))
        else:
            for _, _, repl in splices:
                _check_outer(doc, repl)
            return splices
    # rewrite the whole scalar
    if node.style in ("|", ">") or text[start:end] != node.raw:
        raise _Unsafe(f"cannot rewrite the scalar at line {node.start.line}")
    replacement = _quoted(doc, new)
    _check_outer(doc, replacement)
    return [(start, end, replacement)]


def _apply_subs(value: str, subs: list[tuple[int, int, str]]) -> str:
    """``value`` with each (start, end, new text) substitution made."""
    out, last = [], 0
    for a, b, new in sorted(subs):
        out.append(value[last:a])
        out.append(new)
        last = b
    out.append(value[last:])
    return "".join(out)


def _splice(text: str, edits: list[_Edit]) -> str:
    splices = sorted({s for e in edits for s in e.splices})
    last = 0
    for start, end, _ in splices:
        if start < last:
            raise FixInternalError(f"overlapping edits at offset {start}")
        last = end
    return _apply_subs(text, splices)


# =========================================================================== verification


def _data_with(node: Node, subs: dict[int, Any]) -> Any:
    """``node.to_data()`` with the values of some scalar nodes (keys too) replaced."""
    if node.kind == "scalar":
        return subs.get(id(node), node.value)
    if node.kind == "seq":
        return [_data_with(n, subs) for n in node.items]
    out: dict[Any, Any] = {}
    for k, v in node.pairs:
        key = subs.get(id(k), k.value) if k.kind == "scalar" else f"<{k.kind} key at line {k.start.line}>"
        out[key] = _data_with(v, subs)
    return out


def _same(a: Any, b: Any) -> bool:
    """Equality that also compares types (``1``, ``1.0`` and ``True`` differ) and key order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


def _verify(new_text: str, path: str, fmt: str, root: Node | None, docs: list[_Doc], fixers: list[_Fixer]) -> None:
    """The new text must read as exactly the intended data."""
    try:
        new_root, new_docs = _documents(SourceFile(new_text, path), fmt)
    except FixError as exc:
        raise FixInternalError(f"the fixed text does not parse ({exc})") from None
    if root is None or new_root is None or len(new_docs) != len(docs):
        raise FixInternalError("the fixed text holds other documents than the original")
    for doc, new_doc, fixer in zip(docs, new_docs, fixers):  # fixer.doc is doc
        if not _same(new_doc.root.to_data(), fixer.data()):
            raise FixInternalError(f"the fixed {doc.holder or 'document'} does not read as intended")
    holders = {d.holder for d in docs if d.holder}
    if holders:
        before = {k: v for k, v in root.to_data().items() if k not in holders}
        after = {k: v for k, v in new_root.to_data().items() if k not in holders}
        if not _same(before, after):
            raise FixInternalError("the fixed update body changed outside its definitions")
