"""Code actions: ``wflint fix``'s fixes as quick fixes, suppression comments, and fix-all.

* A quick fix for every fix ``wflint fix`` would make (``fix.targeted.fixes``), offered on the
  diagnostic it answers: a WF106 rename changes the name and every reference to it, a WF004
  quoting quotes the one scalar. Each is proven by the fixer to read as intended.
* "Suppress WFnnn on this line" for YAML files: ``# wflint: disable=WFnnn`` at the end of the
  line (added to a suppression comment already there), or on a line of its own above it. The
  new text is checked before it is offered: it must read as the same data and no longer give
  that diagnostic on that line (a comment inside a block scalar would be text, not a comment).
* "Fix all wflint problems" (``source.fixAll.wflint``): ``fix_text`` on the whole document.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from ..project.config import Config
from ..document.parse import parse
from ..document.source import SourceFile
from .capabilities import FIX_ALL_KIND
from .diagnostics import findings
from .documents import Document

if TYPE_CHECKING:  # the fixer is imported by the requests that run it: the first diagnostics do not wait for it
    from ..fix.targeted import EditorFix

_SUPPRESSION = re.compile(r"#\s*wflint:\s*disable\s*=\s*([A-Za-z0-9_,\- ]+?)\s*$")


def _edit(doc: Document, splices: list[tuple[int, int, str]]) -> lsp.WorkspaceEdit:
    edits = [lsp.TextEdit(range=doc.lines.range(a, b), new_text=t) for a, b, t in splices]
    return lsp.WorkspaceEdit(changes={doc.uri: edits})


def code_actions(doc: Document, config: Config, params: lsp.CodeActionParams,
                 published: list[lsp.Diagnostic] | None = None) -> list[lsp.CodeAction]:
    """The actions for ``params``' range. The diagnostics are those the client sends; a client
    that sends none gets those of ``published`` (the server's last, for this text) in the range."""
    only = params.context.only
    out: list[lsp.CodeAction] = []
    ours = [d for d in params.context.diagnostics if d.source == "wflint" and isinstance(d.code, str)]
    if not ours and published:
        ours = [d for d in published if _touches(d.range, params.range)]
    want_quick = not only or any(k.startswith(lsp.CodeActionKind.QuickFix) for k in only)
    if ours and want_quick:
        from ..fix import FixError, FixInternalError
        from ..fix.targeted import FIXABLE_CODES, fixes

        available = []
        if any(d.code in FIXABLE_CODES for d in ours):  # else no fixer run is needed
            try:
                available = fixes(doc.text, doc.path)
            except (FixError, FixInternalError):
                pass
        for d in ours:
            start, end = doc.lines.offset(d.range.start), doc.lines.offset(d.range.end)
            for f in available:
                if d.code in f.codes and _overlaps(f, start, end):
                    out.append(_quick_fix(doc, f, d))
        if doc.fmt == "yaml":
            for d in ours:
                if d.code != "WF900":
                    action = _suppress(doc, config, d)
                    if action is not None:
                        out.append(action)
    # "source", "source.fixAll" and "source.fixAll.wflint" ask for it; unasked, it comes with
    # the quick fixes of our diagnostics
    want_all = any(FIX_ALL_KIND.startswith(k) for k in only) if only else bool(ours)
    if want_all:
        action = fix_all(doc)
        if action is not None:
            out.append(action)
    return out


def _touches(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _overlaps(f: EditorFix, start: int, end: int) -> bool:
    a, b = f.anchor
    return a <= start <= b or start <= a <= end


def _quick_fix(doc: Document, f: EditorFix, d: lsp.Diagnostic) -> lsp.CodeAction:
    return lsp.CodeAction(title=f.title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[d],
                          is_preferred=True, edit=_edit(doc, f.splices))


def fix_all(doc: Document) -> lsp.CodeAction | None:
    from ..fix import FixError, FixInternalError, fix_text

    try:
        result = fix_text(doc.text, doc.path)
    except (FixError, FixInternalError):
        return None
    if not result.changed:
        return None
    end = len(doc.text)
    return lsp.CodeAction(title=f"Fix all wflint problems ({len(result.changes)} fix{'es' if len(result.changes) != 1 else ''})",
                          kind=FIX_ALL_KIND, edit=_edit(doc, [(0, end, result.text)]))


# =========================================================================== suppressions


def suppression_splices(doc: Document, line: int, code: str) -> list[list[tuple[int, int, str]]]:
    """Ways to silence ``code`` on the 0-based ``line``, best first: at the end of the line
    (joining a suppression comment there), or a comment line of its own above it."""
    text = doc.lines.line_text(line)
    start = doc.lines.starts[line] if line < len(doc.lines.starts) else len(doc.text)
    end = start + len(text)
    options = []
    m = _SUPPRESSION.search(text)
    if m is not None:
        codes = [c.strip() for c in m.group(1).split(",") if c.strip()]
        if code in codes:
            return []
        options.append([(start + m.start(1), start + m.end(1), ",".join([*codes, code]))])
    else:
        options.append([(end, end, f"  # wflint: disable={code}")])
    indent = text[: len(text) - len(text.lstrip(" "))]
    options.append([(start, start, f"{indent}# wflint: disable={code}\n")])
    return options


def _suppress(doc: Document, config: Config, d: lsp.Diagnostic) -> lsp.CodeAction | None:
    line = d.range.start.line
    before = _data(doc.text, doc.path)
    for splices in suppression_splices(doc, line, d.code):
        a, b, t = splices[0]
        new_text = doc.text[:a] + t + doc.text[b:]
        if _data(new_text, doc.path) != before:
            continue
        new_doc = Document(doc.uri, doc.path, new_text, encoding=doc.encoding, mode=doc.mode, release=doc.release)
        shift = 1 if t.endswith("\n") else 0
        still = [x for x in findings(new_doc, config) if x.code == d.code and x.line - 1 == line + shift]
        if still:
            continue
        return lsp.CodeAction(title=f"Suppress {d.code} on this line", kind=lsp.CodeActionKind.QuickFix,
                              diagnostics=[d], edit=_edit(doc, splices))
    return None


def _data(text: str, path: str):
    parsed = parse(SourceFile(text, path))
    return None if parsed.root is None else parsed.root.to_data()
