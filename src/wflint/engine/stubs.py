"""The case's stub table (``service-runs.md``): what the browser, the agent and the LLM return.

``blocks`` replaces a block's ``execute`` (any type), ``tasks`` a task block's agent outcome
(one entry per attempt), ``llm`` a text_prompt's answer (one per LLM call), ``prompt_branches``
the results of a conditional's (or while loop's) natural-language criteria. A list in place of
one entry is consumed one entry per execution; the last entry repeats once the list runs out.
"""

from __future__ import annotations

import copy
from typing import Any

_MISSING = object()
#: An ``llm`` entry ``{"raise": "message"}`` makes the LLM call raise (``LLM call failed: …``).
LLM_RAISE_KEY = "raise"


class Stubs:
    def __init__(self, case: dict[str, Any]) -> None:
        self._tables = {name: dict(case.get(name) or {}) for name in ("blocks", "tasks", "llm", "prompt_branches")}
        self._used: dict[tuple[str, str], int] = {}
        #: what ran on a default for want of a stub (``llm:label``, ``task:label`` ...)
        self.unstubbed: list[str] = []
        #: the last prompt-branch answer as given, extra entries included (the LLM's whole reply)
        self.last_raw_results: list[bool] = []

    def prompt_results(self, label: str, count: int) -> list[bool]:
        """The results of ``count`` natural-language criteria of ``label`` for one evaluation:
        a boolean for all of them, a list (one per criterion), a list of such lists (one per
        evaluation) or, for a single criterion, a list of booleans (one per evaluation).
        Without a stub every criterion is false."""
        entry = self._tables["prompt_branches"].get(label, _MISSING)
        if entry is _MISSING:
            self.unstubbed.append(f"prompt_branches:{label}")
            self.last_raw_results = [False] * count
            return [False] * count
        if isinstance(entry, bool):
            self.last_raw_results = [entry] * count
            return [entry] * count
        if isinstance(entry, list) and entry and all(isinstance(x, list) for x in entry):
            results = self.take("prompt_branches", label)
        elif isinstance(entry, list) and count == 1 and len(entry) != 1:
            results = [self._next(label, entry)]
        else:
            results = list(entry) if isinstance(entry, list) else [entry]
        self.last_raw_results = [bool(r) for r in results]
        results = self.last_raw_results[:count]
        return results + [False] * (count - len(results))

    def has(self, table: str, label: str) -> bool:
        return label in self._tables[table]

    def take(self, table: str, label: str, *, per_call_list: bool = True) -> Any:
        """The next entry for ``label``, or ``None`` when the case has none."""
        entry = self._tables[table].get(label, _MISSING)
        if entry is _MISSING:
            return None
        if isinstance(entry, list) and per_call_list and _is_sequence_of_entries(table, entry):
            if not entry:
                return None
            return self._next(label, entry, table)
        return copy.deepcopy(entry)

    def _next(self, label: str, entry: list[Any], table: str = "prompt_branches") -> Any:
        index = self._used.get((table, label), 0)
        self._used[(table, label)] = index + 1
        return copy.deepcopy(entry[min(index, len(entry) - 1)])


def _is_sequence_of_entries(table: str, entry: list[Any]) -> bool:
    # ``prompt_branches`` maps a label to one list of booleans per evaluation; a list of such
    # lists is a sequence of evaluations. Every other table's list is a sequence of entries.
    if table == "prompt_branches":
        return bool(entry) and all(isinstance(item, list) for item in entry)
    return True
