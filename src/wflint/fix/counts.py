"""How many of ``wflint check``'s findings ``wflint fix`` would fix, and how many more
``--unsafe-fixes`` would: the count ``check``'s summary names (as ruff's "N fixable with --fix").

Counted by doing it: each file with a finding some fix answers is fixed in memory (``fix_text``,
safe, then unsafe), checked again, and compared with its findings before, rule by rule (a fix
moves the findings after it, so places cannot be compared; a rule's count can). A finding
counts as fixable when the fixed text no longer has it; a fix that makes a new finding of the
same rule counts against it, so the number is never more than what ``wflint fix`` removes.
Files without such a finding are not read again: a clean run pays nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Callable, Sequence

from ..api import check_text
from ..project.config import Config
from ..core.diagnostics import Diagnostic
from ..core.records import MutableRecord, assign
from ..report.grouping import group
from .results import FixError, FixInternalError
from .targeted import FIXABLE_CODES, INTENT_CODES
from .wrap import CODE as WRAP_CODE

#: the rules some fix answers (the wrapping of WF013 included)
ANSWERED = FIXABLE_CODES | {WRAP_CODE}
#: the rules only `--unsafe-fixes` answers
UNSAFE_ONLY = frozenset(INTENT_CODES)


class FixableCounts(MutableRecord):
    """``safe``: findings ``wflint fix`` removes; ``unsafe``: how many more ``--unsafe-fixes`` does."""

    def __init__(self, safe: int = 0, unsafe: int = 0) -> None:
        assign(self, locals())


def _removed(before: Counter, after: Counter) -> int:
    return sum(max(0, n - after[code]) for code, n in before.items())


def _codes(text: str, path: str, config: Config) -> Counter:
    return Counter(d.code for d in group(check_text(text, path, config)))


def fixable_counts(diags: Sequence[Diagnostic], text_of: Callable[[str], "str | None"], config: Config) -> FixableCounts:
    """Count over every file of ``diags`` (the findings as reported: grouped, filtered);
    ``text_of(path)`` gives a file's text, or None when it cannot be read again."""
    from . import fix_text  # the package's entry point

    by_path: dict[str, list[Diagnostic]] = defaultdict(list)
    for d in diags:
        by_path[d.path].append(d)
    counts = FixableCounts()
    for path, found in by_path.items():
        if not any(d.code in ANSWERED for d in found):
            continue
        text = text_of(path)
        if text is None:
            continue
        before = Counter(d.code for d in found)
        # each fix runs only where a finding asks for it: the count costs a fix and a check of
        # the files that have such findings, and no more
        wants_safe = any(d.code in ANSWERED and d.code not in UNSAFE_ONLY for d in found)
        wants_unsafe = any(d.code in UNSAFE_ONLY for d in found)
        try:
            safe = fix_text(text, path) if wants_safe else None
            unsafe = fix_text(text, path, unsafe=True) if wants_unsafe else None
        except (FixError, FixInternalError):
            continue  # `wflint fix` would fix nothing here either
        after_safe = _codes(safe.text, path, config) if safe is not None and safe.changed else before
        if unsafe is None or unsafe.text == (safe.text if safe is not None else text):
            after_unsafe = after_safe
        else:
            after_unsafe = _codes(unsafe.text, path, config)
        counts.safe += _removed(before, after_safe)
        counts.unsafe += max(0, _removed(before, after_unsafe) - _removed(before, after_safe))
    return counts


def summary(counts: FixableCounts) -> str | None:
    """``3 fixable with `wflint fix` (2 more with `wflint fix --unsafe-fixes`).``, or None."""
    if counts.safe and counts.unsafe:
        return f"{counts.safe} fixable with `wflint fix` ({counts.unsafe} more with `wflint fix --unsafe-fixes`)."
    if counts.safe:
        return f"{counts.safe} fixable with `wflint fix`."
    if counts.unsafe:
        return f"{counts.unsafe} fixable with `wflint fix --unsafe-fixes` (no safe fix applies)."
    return None
