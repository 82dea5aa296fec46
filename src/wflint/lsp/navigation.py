"""Go to definition, find references and rename, for block labels and parameter keys.

A name is recognised under the cursor wherever it is written: the label or key itself, a
routing field (``next_block_label``, ``finally_block_label``, branch targets), a
``parameter_keys`` entry, ``source_parameter_key``, ``loop_over_parameter_key`` and the other
reference fields the model declares, ``loop_variable_reference``, and templates (where
``<label>_output`` names the block). Its references are the places WF106's fix would change
when renaming it (``fix.targeted``), and a rename makes exactly those edits.
"""

from __future__ import annotations

from lsprotocol import types as lsp

from .documents import Document, quoted_span, name_at, names


def definition(doc: Document, offset: int) -> list[lsp.Location]:
    found = name_at(doc, offset)
    if found is None:
        return []
    wf, name = found
    table = names(wf)
    entries = table.labels.get(name.name, []) if name.kind == "label" else table.keys.get(name.name, [])
    return [lsp.Location(uri=doc.uri, range=doc.lines.range(*quoted_span(n))) for _, n in entries]


def references(doc: Document, offset: int, include_declaration: bool = True) -> list[lsp.Location]:
    found = name_at(doc, offset)
    if found is None:
        return []
    wf, name = found
    from ..fix.targeted import reference_spans  # here: the first diagnostics do not wait for the fixer

    spans = reference_spans(doc.text, doc.path, name.name, name.kind)
    if not include_declaration:
        table = names(wf)
        entries = table.labels.get(name.name, []) if name.kind == "label" else table.keys.get(name.name, [])
        defs = {(n.start.offset, n.end.offset) for _, n in entries}
        spans = [s for s in spans if not any(a <= s[0] < b for a, b in defs)]
    return [lsp.Location(uri=doc.uri, range=doc.lines.range(a, b)) for a, b in spans]


def prepare_rename(doc: Document, offset: int) -> lsp.PrepareRenamePlaceholder | None:
    found = name_at(doc, offset)
    if found is None:
        return None
    _wf, name = found
    a, b = name.span
    if name.kind == "label" and doc.text[a:b].endswith("_output") and not name.definition:
        b = a + len(name.name) if doc.text[a:a + len(name.name)] == name.name else b
    return lsp.PrepareRenamePlaceholder(range=doc.lines.range(a, b), placeholder=name.name)


class RenameRefused(Exception):
    """A rename that cannot be made; the message says why."""


def rename(doc: Document, offset: int, new_name: str) -> lsp.WorkspaceEdit | None:
    found = name_at(doc, offset)
    if found is None:
        return None
    _wf, name = found
    from ..fix import FixError, FixInternalError
    from ..fix.targeted import RenameError, rename_splices

    try:
        splices = rename_splices(doc.text, doc.path, name.name, new_name, name.kind)
    except (RenameError, FixError, FixInternalError) as exc:
        raise RenameRefused(str(exc)) from None
    edits = [lsp.TextEdit(range=doc.lines.range(a, b), new_text=t) for a, b, t in splices]
    return lsp.WorkspaceEdit(changes={doc.uri: edits})
