"""Hover: the rule's documentation on a diagnostic's range; the field's description, type and
default on a key; what a label or parameter reference names and where it is defined."""

from __future__ import annotations

from lsprotocol import types as lsp

from ..core.diagnostics import Diagnostic
from ..rules import registry
from .documents import Document, located, name_at, names
from .knowledge import field_markdown, field_of, object_at, owner_name


def hover(doc: Document, offset: int, diags: list[Diagnostic]) -> lsp.Hover | None:
    parts: list[str] = []
    span: tuple[int, int] | None = None
    for d in diags:
        a = doc.source.offset(d.line, d.column)
        b = doc.source.offset(d.end_line, d.end_column)
        if a <= offset <= max(a, b):
            rule = registry().get(d.code)
            if rule is not None and f"**{rule.code}" not in "".join(parts):
                parts.append(f"**{rule.code} {rule.name}** ({d.severity})\n\n{rule.doc}")
    named = name_at(doc, offset)
    if named is not None:
        wf, name = named
        parts.insert(0, _name_markdown(doc, wf, name.name, name.kind, name.definition))
        span = name.span
    else:
        key = _key_markdown(doc, offset)
        if key is not None:
            text, span = key
            parts.insert(0, text)
    if not parts:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
                     range=doc.lines.range(*span) if span else None)


def _key_markdown(doc: Document, offset: int) -> tuple[str, tuple[int, int]] | None:
    found = located(doc, offset)
    if found is None:
        return None
    wf, path, node, is_key = found
    if not is_key:
        if path and path[-1] in ("block_type", "parameter_type") and node.is_str():
            table = wf.release.BLOCK_TYPES if path[-1] == "block_type" else wf.release.PARAMETER_TYPES
            obj = table.get(node.value)
            if obj is not None:
                return f"**{obj.title}**\n\n{obj.description}", (node.start.offset, node.end.offset)
        return None
    f = field_of(wf, path)
    if f is None:
        return None
    found_obj = object_at(wf, path[:-1])
    owner = owner_name(found_obj[0], found_obj[1]) if found_obj else None
    return field_markdown(f, owner), (node.start.offset, node.end.offset)


def _name_markdown(doc: Document, wf, name: str, kind: str, definition: bool) -> str:
    table = names(wf)
    if kind == "label":
        entries = table.labels.get(name, [])
        if not entries:
            return f"block label **{name}**"
        block, node = entries[0]
        line = doc.lines.position(node.start.offset).line + 1
        obj = wf.release.BLOCK_TYPES.get(block.tag or "")
        what = f"a `{block.tag}` block" if obj else "a block of unknown type"
        where = "defined here" if definition else f"defined at line {line}"
        scope = f", inside loop '{block.parent.label}'" if block.parent is not None else ""
        out = f"block **{name}**: {what}{scope}, {where}. Its output is `{name}_output`."
        if len(entries) > 1:
            out += f"\n\n{len(entries)} blocks carry this label (WF201)."
        return out
    entries = table.keys.get(name, [])
    if not entries:
        return f"parameter **{name}**"
    param, node = entries[0]
    line = doc.lines.position(node.start.offset).line + 1
    kind_text = param.type or "unknown"
    extra = param.data.get("workflow_parameter_type")
    out = f"parameter **{name}**: {kind_text} parameter" + (f" ({extra})" if isinstance(extra, str) else "")
    out += ", defined here." if definition else f", defined at line {line}."
    desc = param.data.get("description")
    if isinstance(desc, str) and desc:
        out += f"\n\n{desc}"
    if "default_value" in param.data:
        out += f"\n\ndefault: `{param.data['default_value']!r}`"
    return out

