"""``wflint fix``: safe automatic fixes that keep every untouched byte of the file.

First, a request whose definition is not under ``workflow_definition`` (WF013) is wrapped as
its author meant (``wrap``), and a file holding the service's stored form of a workflow
(WF012) is rewritten into the request it came from (``stored``). Then two kinds of fix, both limited to changes that cannot alter what a correct workflow means:

* **WF106: invalid identifiers** (``renames``): a block label or parameter key that is not an
  identifier is renamed to the name the service's YAML sanitizer gives it, and every reference
  to it is updated in the same pass, template references included (``templates``);
* **WF004: YAML 1.1 traps** (``quoting``): a plain scalar in a string field that YAML 1.1 reads
  as a non-string is quoted, so that the service receives the text as written.

With ``--unsafe-fixes`` (ruff's word for fixes that change what the service stores), names
that are a near miss of exactly one existing name are renamed to it (``intent``): a misspelt
key (WF109), a ``next_block_label`` (WF202), a ``parameter_keys`` entry (WF205), a template
variable (WF402).

The documents fixed are the file itself or an update body's definitions (``document``).
Nothing is re-serialised: each change is a splice of a scalar's own source text, and every
result is parsed again and must give exactly the intended data, else ``FixInternalError`` is
raised and nothing is changed (``edits``). Line numbers in messages refer to the file before
fixing. ``command`` is the command line.

The public API: ``fix_text`` (defined here), ``FixResult``, ``FixError``, ``FixInternalError``
and the click command ``fix``.
"""

from __future__ import annotations

import re
from typing import Callable

from ..document.source import SourceFile
from .command import fix
from .document import _documents, _format_of
from .edits import _Fixer, _splice, _verify
from .quoting import quote_traps
from .renames import plan_renames, rename
from .results import FixError, FixInternalError, FixResult
from .stored import convert_stored
from .wrap import wrap_definition

# internal helpers the tests reach as ``wflint.fix.<name>``
from .edits import _apply_subs  # noqa: F401
from .templates import _names_pattern, _template_subs  # noqa: F401

__all__ = ["FixResult", "FixError", "FixInternalError", "fix_text", "fix"]


def fix_text(text: str, path: str, unsafe: bool = False) -> FixResult:
    """Fix one document given as text; ``path`` picks YAML or JSON by its suffix. With
    ``unsafe``, the safe fixes are followed by the renames to what the author meant
    (``intent``: misspelt keys, label references, parameter keys, template variables).

    Pure: no file is read or written. Raises ``FixError`` when the text cannot be parsed and
    ``FixInternalError`` when the edits would not give exactly the intended data."""
    wrapped = wrap_definition(text, path, _format_of(path, text))
    if wrapped is not None:  # WF013 first: the request it gives is then fixed like any other
        rest = fix_text(wrapped.text, path)
        return FixResult(rest.text, wrapped.changes + rest.changes, wrapped.notes + rest.notes)
    stored = convert_stored(text, path, _format_of(path, text))
    if stored is not None:  # WF012 first; the request it gives may need the other fixes too
        rest = fix_text(stored.text, path, unsafe)
        return FixResult(rest.text, stored.changes + rest.changes, stored.notes + rest.notes)
    try:
        safe = _fix(text, path, conservative=False)
    except FixInternalError:
        # a span splice inside a folded or escaped scalar read back differently: rewrite such
        # scalars whole instead (and if that fails too, give up without changing anything)
        safe = _fix(text, path, conservative=True)
    if not unsafe:
        return safe
    result = safe
    for _ in range(_INTENT_PASSES):  # a renamed key can make a template in its value checked
        try:
            meant = _fix_intent(result.text, path, conservative=False)
        except FixInternalError:
            meant = _fix_intent(result.text, path, conservative=True)
        notes = result.notes + [n for n in meant.notes if n not in result.notes]
        result = FixResult(meant.text, result.changes + meant.changes, notes)
        if not meant.changes:
            break
    return result


#: unsafe passes at most: each one's renames may reveal findings the next one answers
_INTENT_PASSES = 3


def _fix_intent(text: str, path: str, conservative: bool) -> FixResult:
    """The unsafe renames on ``text`` (already safely fixed), proven like the safe fixes."""
    from .intent import diagnostics_of, intent_fixes

    diagnostics = diagnostics_of(text, path)
    if not diagnostics:
        return FixResult(text, [], [])
    return _apply_pass(text, path, conservative, lambda fixer: intent_fixes(fixer, diagnostics),
                       sort_notes=False, tag=", unsafe")


def _fix(text: str, path: str, conservative: bool) -> FixResult:
    return _apply_pass(text, path, conservative, _safe_fixes, sort_notes=True, tag="")


def _safe_fixes(fixer: _Fixer) -> None:
    quote_traps(fixer)
    plan = plan_renames(fixer)
    if plan is not None:
        rename(fixer, plan)


def _apply_pass(text: str, path: str, conservative: bool, plan: Callable[[_Fixer], None], *,
                sort_notes: bool, tag: str) -> FixResult:
    """One pass of fixes over every document of ``text``: ``plan`` records each document's
    edits, which are spliced in and proven (``_verify``) before the result is reported."""
    fmt = _format_of(path, text)
    source = SourceFile(text, path)
    root, docs = _documents(source, fmt)
    notes: list[str] = []
    fixers: list[_Fixer] = []
    for doc in docs:
        fixer = _Fixer(doc, notes, conservative)
        plan(fixer)
        fixers.append(fixer)
    if sort_notes:
        notes.sort(key=_line_of)
    edits = [e for f in fixers for e in f.edits.values()]
    if not edits:
        return FixResult(text, [], notes)
    new_text = _splice(text, edits)
    _verify(new_text, path, fmt, root, docs, fixers)
    edits.sort(key=lambda e: e.offset)
    changes = [f"line {source.pos(e.offset).line}: {e.message} ({e.code}{tag})" for e in edits]
    return FixResult(new_text, changes, notes)


def _line_of(note: str) -> int:
    m = re.match(r"line (\d+):", note)
    return int(m.group(1)) if m else 0
