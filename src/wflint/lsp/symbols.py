"""Document symbols: an outline of each workflow's parameters and blocks, loop bodies nested."""

from __future__ import annotations

from lsprotocol import types as lsp

from ..workflow.view import Block
from .documents import Document


def symbols(doc: Document) -> list[lsp.DocumentSymbol]:
    out: list[lsp.DocumentSymbol] = []
    for wf in doc.workflows:
        if wf.root is None or wf.schema_only:
            continue
        for p in wf.params:
            node = wf.root.at(p.path)
            if node is None:
                continue
            key = wf.root.at(p.path + ("key",))
            name = key.value if key is not None and key.is_str() and key.value.strip() else f"parameter {p.index + 1}"
            out.append(_symbol(doc, name, p.type or "parameter", lsp.SymbolKind.Variable, node, key, []))
        out.extend(_block(doc, wf, b) for b in wf.blocks if wf.root.at(b.path) is not None)
    return out


def _block(doc: Document, wf, b: Block) -> lsp.DocumentSymbol:
    node = wf.root.at(b.path)
    label = wf.root.at(b.path + ("label",))
    name = label.value if label is not None and label.is_str() and label.value.strip() else f"({b.tag or 'block'})"
    children = [_block(doc, wf, c) for c in b.children if wf.root.at(c.path) is not None]
    kind = lsp.SymbolKind.Namespace if b.is_loop else lsp.SymbolKind.Function
    return _symbol(doc, name, b.tag or "block", kind, node, label, children)


def _symbol(doc: Document, name: str, detail: str, kind: lsp.SymbolKind, node, name_node, children) -> lsp.DocumentSymbol:
    full = doc.lines.range(node.start.offset, node.end.offset)
    sel_node = name_node if name_node is not None else node
    selection = doc.lines.range(sel_node.start.offset, sel_node.end.offset)
    return lsp.DocumentSymbol(name=name, detail=detail, kind=kind, range=full, selection_range=selection,
                              children=children or None)
