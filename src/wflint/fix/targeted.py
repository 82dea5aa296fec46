"""The fixes of ``wflint fix`` one at a time, and renames chosen by the author: for editors.

``wflint fix`` applies every fix of a file in one pass. An editor offers them one by one, as a
quick fix on the diagnostic each one answers, and lets the author rename a label or parameter
key to a name of their choosing. Both are built here from the same pieces as ``fix_text``
(``quoting``, ``renames``, ``edits``), so an editor's quick fix changes exactly the characters
``wflint fix`` would change for that one problem, and every result is parsed again and proven
to mean what was intended (``edits._verify``) before it is offered.

* ``fixes(text, path)``: every fix, each with the offset of the scalar it answers (the node
  a WF004 or WF106 diagnostic points at) and the splices that make it. A WF106 rename carries
  every reference to the renamed name.
* ``rename_splices(text, path, old, new, kind)``: the splices that rename a block label or a
  parameter key to ``new`` with every reference (the same walk as WF106's fix).
* ``reference_spans(text, path, name, kind)``: where a label or parameter key is named: the
  places a rename would change.

``FIX_PROVIDERS`` lists the functions that produce fixes (the stored-form conversion, quoting,
renames, and the unsafe renames to what the author meant, ``intent``); a new kind of fix is
added there and reaches every editor at once. The editor offers the unsafe ones as quick fixes
only: "Fix all" stays with the safe fixes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..checks.service_checks import block_label_error, parameter_key_error
from ..document.source import SourceFile
from .document import _Doc, _documents, _format_of
from .edits import _Fixer, _splice, _verify
from .quoting import quote_traps
from .renames import _label_nodes, _key_nodes, _Plan, _get, plan_renames, rename
from .results import FixError, FixInternalError
from .intent import CODES as INTENT_CODES
from .stored import CODE as STORED_FORM_CODE, convert_stored

#: a change of the text: (start offset, end offset, replacement)
Splice = tuple[int, int, str]
#: quoting a YAML 1.1 trap answers WF004, and WF102 where a string field gets a boolean or number
QUOTING_CODES = ("WF004", "WF102")
RENAME_CODES = ("WF106",)
STORED_FORM_CODES = (STORED_FORM_CODE,)


@dataclass
class EditorFix:
    """One fix: ``codes`` are the rules whose diagnostic it answers (quoting a YAML 1.1 trap
    answers WF004, or WF102 where a string field receives a boolean or number), ``anchor`` the
    (start, end) offsets of the scalar such a diagnostic points at, ``title`` what the fix does
    in a few words."""

    codes: tuple[str, ...]
    title: str
    anchor: tuple[int, int]
    splices: list[Splice] = field(default_factory=list)


class RenameError(Exception):
    """A rename that cannot be made (an invalid or taken name, an unsafe edit)."""


def _docs(text: str, path: str) -> tuple[str, object, list[_Doc]]:
    fmt = _format_of(path, text)
    root, docs = _documents(SourceFile(text, path), fmt)
    return fmt, root, docs


def _proven(text: str, path: str, conservative: bool,
            build: Callable[[_Doc, _Fixer], None]) -> tuple[list[Splice], list[str]]:
    """Run ``build`` on a fresh fixer per document and return the splices, once the result is
    proven to read as intended. Notes say why something was left alone."""
    fmt, root, docs = _docs(text, path)
    notes: list[str] = []
    fixers = []
    for doc in docs:
        fixer = _Fixer(doc, notes, conservative)
        build(doc, fixer)
        fixers.append(fixer)
    edits = [e for f in fixers for e in f.edits.values()]
    if not edits:
        return [], notes
    _verify(_splice(text, edits), path, fmt, root, docs, fixers)
    return sorted({s for e in edits for s in e.splices}), notes


def _with_fallback(text: str, path: str, build: Callable[[_Doc, _Fixer], None]) -> tuple[list[Splice], list[str]]:
    try:
        return _proven(text, path, False, build)
    except FixInternalError:
        return _proven(text, path, True, build)


# =========================================================================== wflint fix, one by one


def _quoting_fixes(text: str, path: str) -> list[EditorFix]:
    out: list[EditorFix] = []
    _fmt, _root, docs = _docs(text, path)
    for doc in docs:
        fixer = _Fixer(doc, [])
        quote_traps(fixer)
        for edit in fixer.edits.values():
            node = edit.node
            anchor = (node.start.offset, node.end.offset)

            def one(d: _Doc, f: _Fixer, target=anchor, holder=doc.holder) -> None:
                if d.holder != holder:
                    return
                quote_traps(f)
                keep = {k: e for k, e in f.edits.items() if (e.node.start.offset, e.node.end.offset) == target}
                f.edits.clear()
                f.edits.update(keep)

            try:
                splices, _ = _with_fallback(text, path, one)
            except (FixError, FixInternalError):
                continue
            if splices:
                out.append(EditorFix(QUOTING_CODES, f"Quote `{node.raw}` so the service receives the text", anchor, splices))
    return out


def _rename_fixes(text: str, path: str) -> list[EditorFix]:
    out: list[EditorFix] = []
    _fmt, _root, docs = _docs(text, path)
    for doc in docs:
        fixer = _Fixer(doc, [])
        plan = plan_renames(fixer)
        if plan is None:
            continue
        def_node = _get(doc.root, "workflow_definition")
        anchors = {fixer.value(n): n for _, n in _label_nodes(fixer, def_node)}
        key_anchors = {fixer.value(n): n for _, n in _key_nodes(fixer, def_node)}
        for kind, table, nodes in (("label", plan.labels, anchors), ("key", plan.keys, key_anchors)):
            for old, new in table.items():
                node = nodes.get(old)
                if node is None:
                    continue
                one_plan = _Plan({old: new} if kind == "label" else {}, {old: new} if kind == "key" else {}, plan.service)

                def one(d: _Doc, f: _Fixer, p=one_plan, holder=doc.holder) -> None:
                    if d.holder == holder:
                        rename(f, p)

                try:
                    splices, _ = _with_fallback(text, path, one)
                except (FixError, FixInternalError):
                    continue
                if splices:
                    what = "block label" if kind == "label" else "parameter key"
                    title = f"Rename {what} '{old}' to '{new}', with every reference"
                    out.append(EditorFix(RENAME_CODES, title, (node.start.offset, node.end.offset), splices))
    return out


def _stored_form_fixes(text: str, path: str) -> list[EditorFix]:
    """The service's stored form rewritten as the request it came from (WF012), as one edit of
    the whole document: the conversion touches many places at once. Fixes the request itself
    still needs are offered again once the editor re-checks the converted text."""
    converted = convert_stored(text, path, _format_of(path, text))
    if converted is None:
        return []
    title = "Rewrite the service's stored form as a request (drop the fields only the service writes)"
    return [EditorFix(STORED_FORM_CODES, title, (0, len(text)), [(0, len(text), converted.text)])]


def _intent_fixes(text: str, path: str) -> list[EditorFix]:
    """``wflint fix --unsafe-fixes``' renames, one per finding: a misspelt key, label
    reference, parameter key or template variable renamed to the one name it is a near miss
    of. Offered only where the finding names exactly one candidate."""
    from .intent import diagnostics_of, intent_fixes

    out: list[EditorFix] = []
    for d in diagnostics_of(text, path):
        made: list = []

        def one(doc: _Doc, fixer: _Fixer, d=d, made=made) -> None:
            made[:] = intent_fixes(fixer, [d])

        try:
            splices, _ = _with_fallback(text, path, one)
        except (FixError, FixInternalError):
            continue
        if splices and made:
            out.append(EditorFix((d.code,), made[0].title, made[0].anchor, splices))
    return out


#: every producer of fixes; each takes (text, path) and returns EditorFix items
FIX_PROVIDERS: list[Callable[[str, str], list[EditorFix]]] = [_stored_form_fixes, _quoting_fixes, _rename_fixes,
                                                              _intent_fixes]
#: the codes of the diagnostics some provider's fixes answer
FIXABLE_CODES = frozenset({*STORED_FORM_CODES, *QUOTING_CODES, *RENAME_CODES, *INTENT_CODES})


def fixes(text: str, path: str) -> list[EditorFix]:
    """Every fix ``wflint fix`` would make in ``text``, one by one. Raises ``FixError`` when the
    text does not parse."""
    out: list[EditorFix] = []
    for provider in FIX_PROVIDERS:
        out.extend(provider(text, path))
    return out


# =========================================================================== renames and references


def _name_error(new: str, kind: str) -> str | None:
    return block_label_error(new) if kind == "label" else parameter_key_error(new)


def rename_splices(text: str, path: str, old: str, new: str, kind: str) -> list[Splice]:
    """Rename the block label (``kind="label"``) or parameter key (``kind="key"``) ``old`` to
    ``new`` with every reference. Raises ``RenameError`` when ``new`` is not a name the service
    accepts, is already used, or an edit cannot be written safely."""
    problem = _name_error(new, kind)
    if problem is not None:
        raise RenameError(problem)
    _fmt, _root, docs = _docs(text, path)
    for doc in docs:
        fixer = _Fixer(doc, [])
        def_node = _get(doc.root, "workflow_definition")
        taken = {fixer.value(n) for _, n in _label_nodes(fixer, def_node)} | \
                {fixer.value(n) for _, n in _key_nodes(fixer, def_node)}
        if new in taken and new != old:
            raise RenameError(f"'{new}' is already the name of a block or parameter")
    plan = _Plan({old: new} if kind == "label" else {}, {old: new} if kind == "key" else {}, None)
    splices, notes = _with_fallback(text, path, lambda d, f: rename(f, plan))
    if not splices and notes:
        raise RenameError(notes[0].split(": ", 1)[-1])
    return splices


#: a name no workflow uses, given to the renamer to find where a name is written
_PROBE = "wflint_reference_probe"


def reference_spans(text: str, path: str, name: str, kind: str) -> list[tuple[int, int]]:
    """The (start, end) offsets of every place ``name`` is written as a block label
    (``kind="label"``, its ``<label>_output`` references included) or parameter key, its
    definitions included: exactly the places a rename changes."""
    plan = _Plan({name: _PROBE} if kind == "label" else {}, {name: _PROBE} if kind == "key" else {}, None)
    try:
        splices, _ = _with_fallback(text, path, lambda d, f: rename(f, plan))
    except (FixError, FixInternalError):
        return []
    return [(a, b) for a, b, _ in splices]
