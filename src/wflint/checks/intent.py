"""What the author meant: the one known name a misspelt name is a near miss of.

A key, label reference, parameter key or template variable that names nothing may be a near
miss of exactly one name valid at that place: ``navigaton_goal`` (``navigation_goal``),
``data_schem`` (``data_schema``), ``loop_over`` (``loop_over_parameter_key``), ``blocks`` in a
loop (``loop_blocks``). Rules say so with ``did_you_mean``; ``wflint fix --unsafe-fixes`` and the
language server read the suggestion back with ``suggested_name`` and rename to it.
"""

from __future__ import annotations

from typing import Iterable

from ..core.patterns import lazy

#: how alike two names must be (``difflib`` ratio) to count as a misspelling of each other
CUTOFF = 0.75
#: a shorter key is never read as the start of a longer field (``url`` is no ``url_...``)
SHORTEST_PREFIX = 4

_DID_YOU_MEAN = lazy(r"did you mean '([^']+)'\?")


def near_misses(word: str, candidates: Iterable[str]) -> list[str]:
    """The candidates ``word`` is a near miss of, best first: close spellings, and a field that
    ``word`` begins (``loop_over`` → ``loop_over_parameter_key``) or ends
    (``blocks`` → ``loop_blocks``) at a word boundary. Empty when it is none's."""
    pool = [c for c in candidates if c != word]
    if not pool or len(word) > 100:
        return []
    import difflib  # here: only an unknown name asks, and most files have none

    close = difflib.get_close_matches(word, pool, n=3, cutoff=CUTOFF)
    if close:
        return close
    if len(word) >= SHORTEST_PREFIX:
        starts = [c for c in pool if c.startswith(word + "_")]
        ends = [c for c in pool if c.endswith("_" + word)]
        return sorted(starts) + sorted(c for c in ends if c not in starts)
    return []


def one_near_miss(word: str, candidates: Iterable[str]) -> str | None:
    """The single name ``word`` is a near miss of, or None (no near miss, or several alike)."""
    found = near_misses(word, candidates)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        import difflib

        ratio = [difflib.SequenceMatcher(None, word, c).ratio() for c in found[:2]]
        if ratio[0] >= CUTOFF and ratio[0] - ratio[1] >= 0.05:
            return found[0]  # clearly the nearest of the close spellings
    return None


def did_you_mean(names: list[str]) -> str:
    """The suggestion's wording: one name is a fix the tools can apply, several a question."""
    if len(names) == 1:
        return f"did you mean '{names[0]}'?"
    return "did you mean " + " or ".join(f"`{n}`" for n in names) + "?"


def suggested_name(help_text: str | None) -> str | None:
    """The one name a ``did_you_mean`` suggestion offers (None when it offers none or several)."""
    if not help_text:
        return None
    found = _DID_YOU_MEAN.findall(help_text)
    return found[0] if len(found) == 1 else None
