"""One open document as the features see it: its text, the parsed tree and workflows (the
same ``parse`` and ``unwrap`` stages ``wflint check`` runs), and what is under the cursor.

A ``Document`` parses and unwraps once per text (``parsed``, ``workflows``); the features then
read the tree. A name
under the cursor is found by walking the tree to the scalar that holds the offset
(``locate``) and reading it as a block label, a parameter key or a reference to one
(``name_at``). Where a name is written elsewhere is ``fix.targeted.reference_spans``' business:
the places a rename would change.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from .. import model
from ..document.nodes import Node
from ..document.parse import format_from_path, parse
from ..document.source import SourceFile
from ..checks.template_analysis import analyze
from ..document.string_offsets import value_offsets
from ..workflow import unwrap
from ..workflow.view import Block, Param, Workflow
from .positions import LineIndex

#: the top-level keys of a workflow file: a document that does not parse is taken for a
#: workflow (and gets its syntax error) only when it names one of them
WORKFLOW_KEYS = ("workflow_definition", "json_definition", "yaml_definition")

#: documents longer than this (characters) are not checked in the editor: a workflow
#: definition is a few kilobytes, and checking megabytes on every keystroke helps nobody
MAX_EDITOR_CHARS = 2_000_000

Path_ = tuple[Any, ...]


def _reference_fields() -> dict[str, str]:
    """Every field declared as a reference in the model: name → "label" or "parameter"."""
    out: dict[str, str] = {}
    for obj in (*model.OBJECTS.values(), model.DEFINITION):
        for f in obj.fields:
            if f.reference:
                out[f.name] = f.reference
    for f in model.COMMON_BLOCK_FIELDS:
        if f.reference:
            out[f.name] = f.reference
    return out


REFERENCE_FIELDS = _reference_fields()
_IDENT = re.compile(r"[^\W\d]\w*")


def is_workflow_path(path: str) -> bool:
    """A .yaml, .yml or .json file (the suffixes ``wflint check`` reads)."""
    return format_from_path(path) is not None


#: the editor's language ids of the documents the server checks, whatever their file's name
CHECKED_LANGUAGES = ("yaml", "json", "jsonc")


def is_checked(path: str, language_id: str) -> bool:
    """Whether the server checks an open document: a workflow file by its name, or any
    document the editor calls YAML or JSON."""
    return is_workflow_path(path) or language_id in CHECKED_LANGUAGES


def looks_like_workflow(text: str) -> bool:
    return any(k in text for k in WORKFLOW_KEYS)


@dataclass(frozen=True)
class Name:
    """A block label (``kind="label"``) or parameter key (``kind="key"``) under the cursor:
    ``span`` is where it is written at the cursor (offsets), ``definition`` whether that place
    is the label or key itself."""

    name: str
    kind: str
    span: tuple[int, int]
    definition: bool = False


@dataclass
class Document:
    uri: str
    path: str
    text: str
    version: int | None = None
    encoding: str = "utf-16"
    mode: str = "auto"
    #: the service release the workspace's configuration (or pinned skyvern) targets; None: the
    #: newest modelled. Checks, completion and hover all answer as this release.
    release: str | None = None

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.text, self.encoding)

    @cached_property
    def source(self) -> SourceFile:
        return SourceFile(self.text, self.path)

    @property
    def fmt(self) -> str:
        return format_from_path(self.path) or ("json" if self.text.lstrip()[:1] in ("{", "[") else "yaml")

    @property
    def too_large(self) -> bool:
        return len(self.text) > MAX_EDITOR_CHARS

    @cached_property
    def parsed(self):
        return parse(self.source, self.fmt)

    @cached_property
    def workflows(self) -> list[Workflow]:
        """The workflows the file holds (none when it does not parse to a mapping)."""
        if self.too_large:
            return []
        root = self.parsed.root
        if root is None or root.kind != "map":
            return []
        return unwrap.unwrap(self.source, root, self.parsed.format, self.mode, self.release).workflows

    @classmethod
    def opened(cls, uri: str, fs_path: str | None, text: str, version: int | None, language_id: str,
               encoding: str, mode: str, release: str | None = None) -> "Document":
        """The document the editor holds: ``fs_path`` is the uri's file (None when it names
        none); a JSON document without a workflow file's name is read as JSON."""
        path = fs_path or uri
        if language_id == "json" and not is_workflow_path(path):
            path += ".json"
        return cls(uri, path, text, version, encoding, mode, release)

    def workflow_at(self, offset: int) -> Workflow | None:
        """The workflow whose definition holds ``offset`` (an update body may hold two)."""
        best = None
        for wf in self.workflows:
            if wf.root is not None and wf.root.start.offset <= offset <= wf.root.end.offset:
                if best is None or wf.root.start.offset >= best.root.start.offset:
                    best = wf
        return best or (self.workflows[0] if self.workflows else None)


# =========================================================================== the tree at an offset


def locate(root: Node, offset: int) -> tuple[Path_, Node, bool] | None:
    """(path, node, is_key) of the innermost node holding ``offset``; for a key, the path of
    its value. None when the offset is outside the tree."""
    if not root.start.offset <= offset <= root.end.offset:
        return None
    path: Path_ = ()
    node = root
    while True:
        if node.kind == "map":
            for k, v in node.pairs:
                if k.start.offset <= offset <= k.end.offset and k.kind == "scalar":
                    return path + (k.value,), k, True
                if v.start.offset <= offset <= v.end.offset and not (v.kind == "scalar" and v.value is None and v.start.offset == v.end.offset):
                    path, node = path + (k.value,), v
                    break
            else:
                return path, node, False
        elif node.kind == "seq":
            for i, item in enumerate(node.items):
                if item.start.offset <= offset <= item.end.offset:
                    path, node = path + (i,), item
                    break
            else:
                return path, node, False
        else:
            return path, node, False


def block_at(wf: Workflow, path: Path_) -> Block | None:
    """The innermost block whose path is a prefix of ``path``."""
    best = None
    for b in wf.all_blocks:
        if path[: len(b.path)] == b.path and (best is None or len(b.path) > len(best.path)):
            best = b
    return best


def param_at(wf: Workflow, path: Path_) -> Param | None:
    for p in wf.params:
        if path[: len(p.path)] == p.path:
            return p
    return None


# =========================================================================== names as written


@dataclass
class Names:
    """The labels and keys of one workflow as written in the file (before the sanitizer)."""

    labels: dict[str, list[tuple[Block, Node]]] = field(default_factory=dict)
    keys: dict[str, list[tuple[Param, Node]]] = field(default_factory=dict)


def names(wf: Workflow) -> Names:
    cached = wf.cache.get("lsp_names")
    if cached is not None:
        return cached
    out = Names()
    if wf.root is not None:
        for b in wf.all_blocks:
            n = wf.root.at(b.path + ("label",))
            if n is not None and n.is_str():
                out.labels.setdefault(n.value, []).append((b, n))
        for p in wf.params:
            n = wf.root.at(p.path + ("key",))
            if n is not None and n.is_str():
                out.keys.setdefault(n.value, []).append((p, n))
    wf.cache["lsp_names"] = out
    return out


def classify(wf: Workflow, name: str) -> tuple[str, str] | None:
    """(name, kind) for a name read somewhere: a parameter key, a label, or ``<label>_output``
    (which names the label's block)."""
    table = names(wf)
    if name in table.keys:
        return name, "key"
    if name in table.labels:
        return name, "label"
    if name.endswith("_output") and name[: -len("_output")] in table.labels:
        return name[: -len("_output")], "label"
    return None


def _string_index(doc: Document, node: Node, offset: int) -> int | None:
    """The index into a string scalar's value of the character written at ``offset``."""
    try:
        table = value_offsets(doc.source, node)
    except Exception:  # noqa: BLE001 - a scalar the offset table cannot map: no name here
        return None
    if not table:
        return None
    i = bisect_left(table, offset)
    if i < len(table) and table[i] == offset:
        return i
    return max(i - 1, 0)


def _in_template(value: str, start: int, end: int) -> bool:
    """Whether ``value[start:end]`` lies inside a Jinja expression or statement (not a comment);
    while a tag is still being typed, inside the last unclosed one."""
    analysis = analyze(value)
    if any(a <= start and end <= b for a, b, kind in analysis.tags if kind != "comment"):
        return True
    if analysis.error is None:
        return False
    opened = max(value.rfind("{{", 0, start), value.rfind("{%", 0, start))
    closed = max(value.rfind("}}", 0, start), value.rfind("%}", 0, start))
    return opened >= 0 and opened > closed


def _odd_name_at(wf: Workflow, value: str, index: int) -> tuple[int, int, tuple[str, str]] | None:
    """A label or key that is not an identifier (WF106 material), written in a tag at ``index``."""
    table = names(wf)
    odd = [n for n in (*table.keys, *table.labels, *(f"{label}_output" for label in table.labels))
           if not n.isidentifier() and n.strip()]
    for name in sorted(odd, key=len, reverse=True):
        for m in re.finditer(r"(?<![\w.])" + re.escape(name) + r"(?!\w)", value):
            if m.start() <= index <= m.end() and _in_template(value, m.start(), m.end()):
                return m.start(), m.end(), classify(wf, name)
    return None


def located(doc: Document, offset: int) -> tuple[Workflow, Path_, Node, bool] | None:
    """(workflow, path, node, is_key) of the innermost node at ``offset`` in the workflow that
    holds it, as ``locate`` gives them; None outside every workflow's tree."""
    wf = doc.workflow_at(offset)
    if wf is None or wf.root is None:
        return None
    found = locate(wf.root, offset)
    return None if found is None else (wf, *found)


def name_at(doc: Document, offset: int) -> tuple[Workflow, Name] | None:
    """The label or parameter key written at ``offset``, if any."""
    found = located(doc, offset)
    if found is None:
        return None
    wf, path, node, is_key = found
    if node.kind != "scalar" or not node.is_str():
        return None
    inner = quoted_span(node)
    if not is_key:
        field_ = next((p for p in reversed(path) if isinstance(p, str)), None)
        owner = block_at(wf, path)
        if field_ == "label" and owner is not None and owner.path + ("label",) == path:
            return wf, Name(node.value, "label", inner, True)
        if field_ == "key" and len(path) == 4 and path[:2] == ("workflow_definition", "parameters"):
            return wf, Name(node.value, "key", inner, True)
        if field_ in REFERENCE_FIELDS and (path[-1] == field_ or isinstance(path[-1], int)):
            hit = classify(wf, node.value)
            if hit is not None:
                return wf, Name(hit[0], hit[1], inner)
        if field_ == "loop_variable_reference":
            hit = classify(wf, node.value.strip(" {}"))
            if hit is not None:
                return wf, Name(hit[0], hit[1], inner)
    value = node.value
    if "{" not in value:
        return None
    index = _string_index(doc, node, offset)
    if index is None:
        return None
    odd = _odd_name_at(wf, value, index)  # a name that is no identifier: `{{ portal-url }}`
    if odd is not None:
        a, b, hit = odd
        table = value_offsets(doc.source, node)
        return wf, Name(hit[0], hit[1], (table[a], table[b - 1] + 1))
    for m in _IDENT.finditer(value):
        if not m.start() <= index <= m.end():
            continue
        if (m.start() > 0 and value[m.start() - 1] == ".") or not _in_template(value, m.start(), m.end()):
            return None  # an attribute (x.name), or text outside any tag
        hit = classify(wf, m.group())
        if hit is None:
            return None
        table = value_offsets(doc.source, node)
        return wf, Name(hit[0], hit[1], (table[m.start()], table[m.end() - 1] + 1))
    return None


def quoted_span(node: Node) -> tuple[int, int]:
    """A scalar's span without its quotes."""
    a, b = node.start.offset, node.end.offset
    if node.style in ('"', "'", "json") and b - a >= 2:
        return a + 1, b - 1
    return a, b
