"""Completion: block and parameter types, the fields of the object at the cursor, labels for
routing, and parameter keys in ``parameter_keys`` and inside ``{{ }}``.

What is being typed is read from the text before the cursor (a half-typed line rarely
parses); where it is read from the tree: the document as it is when it parses, else the
document with the cursor's line replaced by a placeholder key (``_probe``), so the enclosing
block, parameter or object is known while the line is still being written.

* ``block_type:`` / ``parameter_type:`` values: every type, with its title; in a block or
  parameter without a type yet, a snippet per type with its required fields;
* keys: the fields of the object at the cursor that it does not have yet, required first (as
  snippets), with type, default and description;
* ``next_block_label:`` (a block's or a branch's) and ``finally_block_label:``: only labels the
  routing rules allow: blocks of the same scope (the top level, or the same loop body), not
  the block itself and not the finally block (references to it are dropped); for
  ``finally_block_label``, top-level blocks;
* ``parameter_keys`` entries and other parameter-key fields: parameter keys and the
  ``<label>_output`` of other blocks (not the block's own loop's);
* inside ``{{ }}`` / ``{% %}``: parameter keys, ``<label>_output``, the runtime variables, and
  ``current_item``/``current_value``/``current_index`` inside loop bodies only.
"""

from __future__ import annotations

import re
from typing import Any

from lsprotocol import types as lsp

from .. import model
from ..model import types as t
from ..workflow.view import Block, Workflow
from .documents import REFERENCE_FIELDS, Document, block_at, locate, names
from .knowledge import field_markdown, object_at, type_text

_PROBE = "wflint_completion_probe"
_YAML_VALUE = re.compile(r"^\s*(?:-\s+)?[\"']?([A-Za-z_][A-Za-z0-9_]*)[\"']?\s*:\s*[\"']?([A-Za-z0-9_\-]*)$")
_JSON_VALUE = re.compile(r"\"([A-Za-z_][A-Za-z0-9_]*)\"\s*:\s*\"([^\"]*)$")
_YAML_KEY = re.compile(r"^(\s*)(-\s+)?([A-Za-z_][A-Za-z0-9_]*)?$")
_JSON_KEY = re.compile(r"(?:^|[{,])\s*\"([A-Za-z_][A-Za-z0-9_]*)?$")
_WORD_END = re.compile(r"[A-Za-z0-9_\-]*$")
_ITEM = re.compile(r"^(\s*)-\s*[\"']?([A-Za-z0-9_\-]*)$")


def complete(doc: Document, offset: int) -> lsp.CompletionList:
    items = _items(doc, offset)
    return lsp.CompletionList(is_incomplete=False, items=items)


def _items(doc: Document, offset: int) -> list[lsp.CompletionItem]:
    line_no = doc.lines.position(offset).line
    line_start = doc.lines.starts[line_no]
    before = doc.text[line_start:offset]
    json = doc.fmt == "json"

    # inside {{ }} or {% %}
    opened = max(before.rfind("{{"), before.rfind("{%"))
    closed = max(before.rfind("}}"), before.rfind("%}"))
    if opened > closed:
        partial = re.search(r"[A-Za-z0-9_]*$", before).group()
        if not before[: len(before) - len(partial)].endswith("."):
            wf, path = _context(doc, offset, line_no)
            return _template_items(doc, wf, path, offset, partial) if wf is not None else []

    m = (_JSON_VALUE.search(before) if json else _YAML_VALUE.match(before))
    if m is not None:
        key, partial = m.group(1), m.group(2)
        return _value_items(doc, offset, line_no, key, partial)

    if _in_parameter_keys(doc, offset, before, json):
        partial = _WORD_END.search(before).group()
        wf, path = _context(doc, offset, line_no)
        return _key_reference_items(doc, wf, path, offset, partial) if wf is not None else []

    m = _JSON_KEY.search(before) if json else _YAML_KEY.match(before)
    if m is not None:
        partial = (m.group(1) if json else m.group(3)) or ""
        return _field_items(doc, offset, line_no, partial, json)
    return []


# =========================================================================== where the cursor is


def _probe_text(doc: Document, line_no: int, json: bool) -> list[str]:
    """The document with the cursor's line replaced by a placeholder key, in a few forms."""
    start = doc.lines.starts[line_no]
    line = doc.lines.line_text(line_no)
    end = start + len(line)
    if json:
        m = re.search(r"\"[A-Za-z_0-9]*$", line)
        head = line[: m.start()] if m else line
        return [doc.text[:start] + head + f'"{_PROBE}": 0,' + doc.text[end:],
                doc.text[:start] + head + f'"{_PROBE}": 0' + doc.text[end:]]
    m = re.match(r"^(\s*)(-\s+)?", line)
    return [doc.text[:start] + m.group(1) + (m.group(2) or "") + f"{_PROBE}: 0" + doc.text[end:]]


def _context(doc: Document, offset: int, line_no: int, probe_first: bool = False) -> tuple[Workflow | None, tuple]:
    """(workflow, path) at the cursor: the path of the node holding it in the document as it
    is, or, when that does not parse (or ``probe_first``), the path of the placeholder key in
    the document with the cursor's line replaced."""
    probes = [Document(doc.uri, doc.path, text, encoding=doc.encoding, mode=doc.mode, release=doc.release)
              for text in _probe_text(doc, line_no, doc.fmt == "json")]
    attempts: list[tuple[Document, int | None]] = [(doc, offset), *((p, None) for p in probes)]
    if probe_first:
        attempts = attempts[1:] + attempts[:1]
    for candidate, at in attempts:
        parsed = candidate.parsed
        if candidate.too_large or parsed.root is None or any(d.code == "WF001" for d in parsed.diagnostics):
            continue
        if at is None:
            hit = _find_probe(candidate)
            if hit is not None:
                return hit
            continue
        wf = candidate.workflow_at(at)
        if wf is not None and wf.root is not None:
            found = locate(wf.root, at)
            if found is not None:
                return wf, found[0]
    return None, ()


def _find_probe(doc: Document) -> tuple[Workflow, tuple] | None:
    for wf in doc.workflows:
        if wf.root is None:
            continue
        stack: list[tuple[tuple, Any]] = [((), wf.root)]
        while stack:
            path, node = stack.pop()
            if node.kind == "map":
                for k, v in node.pairs:
                    if k.value == _PROBE:
                        return wf, path + (_PROBE,)
                    stack.append((path + (k.value,), v))
            elif node.kind == "seq":
                stack.extend((path + (i,), item) for i, item in enumerate(node.items))
    return None


def _edit_range(doc: Document, offset: int, partial: str) -> lsp.Range:
    return doc.lines.range(offset - len(partial), offset)


def _item(doc: Document, offset: int, partial: str, label: str, kind: lsp.CompletionItemKind,
          detail: str | None = None, documentation: str | None = None, insert: str | None = None,
          snippet: bool = False, sort: str | None = None) -> lsp.CompletionItem:
    return lsp.CompletionItem(
        label=label, kind=kind, detail=detail,
        documentation=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=documentation) if documentation else None,
        text_edit=lsp.TextEdit(range=_edit_range(doc, offset, partial), new_text=insert if insert is not None else label),
        insert_text_format=lsp.InsertTextFormat.Snippet if snippet else lsp.InsertTextFormat.PlainText,
        sort_text=sort, filter_text=label,
    )


# =========================================================================== values


def _value_items(doc: Document, offset: int, line_no: int, key: str, partial: str) -> list[lsp.CompletionItem]:
    release = model.release(doc.release)
    if key == "block_type":
        return [_item(doc, offset, partial, tag, lsp.CompletionItemKind.EnumMember, obj.title, obj.description)
                for tag, obj in release.BLOCK_TYPES.items()]
    if key == "parameter_type":
        return [_item(doc, offset, partial, tag, lsp.CompletionItemKind.EnumMember, obj.title, obj.description)
                for tag, obj in release.PARAMETER_TYPES.items()]
    wf, path = _context(doc, offset, line_no)
    if not path or path[-1] != key:
        # the cursor is past the end of the tree (`next_block_label: ` with nothing typed yet: the
        # empty value ends before the space), so the path names the enclosing list, not the
        # block; the placeholder line finds the block (else it would be offered its own label)
        probed, probe_path = _context(doc, offset, line_no, probe_first=True)
        if probed is not None and probe_path and probe_path[-1] == _PROBE:
            wf, path = probed, probe_path[:-1] + (key,)
    if wf is None:
        return []
    if key == "finally_block_label":
        return [_label_item(doc, offset, partial, wf, b) for b in wf.blocks if _written_label(wf, b)]
    if key == "next_block_label":
        return _next_label_items(doc, offset, partial, wf, path)
    if REFERENCE_FIELDS.get(key) == "parameter":
        return _key_reference_items(doc, wf, path, offset, partial)
    field_path = path if path and path[-1] == key else path + (key,)
    found = object_at(wf, field_path[:-1])
    f = next((x for x in found[2] if x.name == key), None) if found else None
    if f is not None:
        typ = f.type
        if isinstance(typ, t.Enum):
            return [_item(doc, offset, partial, v, lsp.CompletionItemKind.EnumMember, typ.name) for v in typ.values]
        if isinstance(typ, t.Bool):
            return [_item(doc, offset, partial, v, lsp.CompletionItemKind.Value, "boolean") for v in ("true", "false")]
    return []


def _written_label(wf: Workflow, b: Block) -> str | None:
    n = wf.root.at(b.path + ("label",)) if wf.root is not None else None
    return n.value if n is not None and n.is_str() and n.value.strip() else None


def _label_item(doc: Document, offset: int, partial: str, wf: Workflow, b: Block) -> lsp.CompletionItem:
    label = _written_label(wf, b) or ""
    return _item(doc, offset, partial, label, lsp.CompletionItemKind.Reference, f"{b.tag or 'block'} block")


def _next_label_items(doc: Document, offset: int, partial: str, wf: Workflow, path: tuple) -> list[lsp.CompletionItem]:
    owner = block_at(wf, path)
    scope = (owner.parent.children if owner.parent is not None else wf.blocks) if owner is not None else wf.blocks
    finally_label = (wf.definition or {}).get("finally_block_label") if owner is None or owner.parent is None else None
    out = []
    for b in scope:
        label = _written_label(wf, b)
        if label is None or b is owner or (isinstance(finally_label, str) and label == finally_label):
            continue
        out.append(_label_item(doc, offset, partial, wf, b))
    return out


def _key_reference_items(doc: Document, wf: Workflow, path: tuple, offset: int, partial: str) -> list[lsp.CompletionItem]:
    """Parameter keys, and the outputs of blocks other than the one at the cursor and its loops."""
    owner = block_at(wf, path)
    ancestors = set()
    b = owner
    while b is not None:
        ancestors.add(id(b))
        b = b.parent
    out = _param_items(doc, wf, offset, partial)
    for blk in wf.all_blocks:
        label = _written_label(wf, blk)
        if label is not None and id(blk) not in ancestors:
            out.append(_item(doc, offset, partial, f"{label}_output", lsp.CompletionItemKind.Variable,
                             f"output of {blk.tag or 'block'} block '{label}'"))
    return out


def _param_items(doc: Document, wf: Workflow, offset: int, partial: str) -> list[lsp.CompletionItem]:
    out = []
    for key, entries in names(wf).keys.items():
        param = entries[0][0]
        desc = param.data.get("description")
        out.append(_item(doc, offset, partial, key, lsp.CompletionItemKind.Variable, f"{param.type or ''} parameter",
                         desc if isinstance(desc, str) else None))
    return out


def _in_parameter_keys(doc: Document, offset: int, before: str, json: bool) -> bool:
    window = doc.text[max(0, offset - 4000):offset]
    at = window.rfind("parameter_keys")
    if at < 0:
        return False
    rest = window[at + len("parameter_keys"):]
    flow = re.match(r"[\"']?\s*:\s*\[", rest)
    if flow is not None:
        return "]" not in rest[flow.end():]
    if json:
        return False
    m = _ITEM.match(before)
    if m is None:
        return False
    # a block list `parameter_keys:` whose items (and nothing else) lie between it and here
    first, *middle = rest.split("\n")
    if not middle or re.match(r"[\"']?\s*:\s*(#.*)?$", first) is None:
        return False
    indent = len(m.group(1))
    return all(not ln.strip() or ln.lstrip().startswith("#")
               or (ln.lstrip().startswith("-") and len(ln) - len(ln.lstrip()) == indent)
               for ln in middle[:-1])


# =========================================================================== templates


def _template_items(doc: Document, wf: Workflow, path: tuple, offset: int, partial: str) -> list[lsp.CompletionItem]:
    owner = block_at(wf, path)
    out = _param_items(doc, wf, offset, partial)
    for blk in wf.all_blocks:
        label = _written_label(wf, blk)
        if label is not None and blk is not owner:
            out.append(_item(doc, offset, partial, f"{label}_output", lsp.CompletionItemKind.Variable,
                             f"output of {blk.tag or 'block'} block '{label}'"))
    for name in model.RUNTIME_VARIABLES:
        out.append(_item(doc, offset, partial, name, lsp.CompletionItemKind.Constant, "runtime variable"))
    in_loop = owner is not None and (owner.parent is not None or
                                     (owner.tag == "while_loop" and path[len(owner.path):][:1] == ("condition",)))
    if in_loop:
        for name in model.LOOP_VARIABLES:
            out.append(_item(doc, offset, partial, name, lsp.CompletionItemKind.Constant, "loop variable"))
    return out


# =========================================================================== keys


def _field_items(doc: Document, offset: int, line_no: int, partial: str, json: bool) -> list[lsp.CompletionItem]:
    wf, path = _context(doc, offset, line_no, probe_first=True)
    if wf is None or not path or path[-1] != _PROBE:
        return []
    container = path[:-1]
    found = object_at(wf, container)
    if found is None:
        return []
    what, tag, fields = found
    node = wf.root.at(container)
    present = {k.value for k, _ in node.pairs} if node is not None and node.kind == "map" else set()
    indent = " " * (len(doc.lines.line_text(line_no)) - len(doc.lines.line_text(line_no).lstrip(" -")))
    out = []
    if what in ("block", "parameter") and tag is None and not json:
        table = wf.release.BLOCK_TYPES if what == "block" else wf.release.PARAMETER_TYPES
        disc = "block_type" if what == "block" else "parameter_type"
        for type_tag, obj in table.items():
            required = [f for f in (*(wf.release.COMMON_BLOCK_FIELDS if what == "block" else ()), *obj.fields)
                        if f.required and f.name not in present]
            body = [f"{disc}: {type_tag}"] + [f"{indent}{f.name}: ${{{i}}}" for i, f in enumerate(required, start=1)]
            out.append(_item(doc, offset, partial, f"{disc}: {type_tag}", lsp.CompletionItemKind.Snippet,
                             f"{obj.title} with its required fields", obj.description, "\n".join(body) + "$0",
                             snippet=True, sort=f"0{type_tag}"))
    for f in fields:
        if f.name in present:
            continue
        documentation = field_markdown(f)
        if json:
            out.append(_item(doc, offset, partial, f.name, lsp.CompletionItemKind.Field, type_text(f.type),
                             documentation, sort=f"{0 if f.required else 1}{f.name}"))
        elif f.required:
            out.append(_item(doc, offset, partial, f.name, lsp.CompletionItemKind.Field, "required · " + type_text(f.type),
                             documentation, f"{f.name}: ${{1}}", snippet=True, sort=f"1{f.name}"))
        else:
            out.append(_item(doc, offset, partial, f.name, lsp.CompletionItemKind.Field, type_text(f.type),
                             documentation, f"{f.name}: ", sort=f"2{f.name}"))
    return out
