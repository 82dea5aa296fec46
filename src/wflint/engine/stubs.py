"""The case's stub table (``service-runs.md``): what the browser, the agent and the LLM return.

``blocks`` replaces a block's ``execute`` (any type), ``tasks`` a task block's agent outcome
(one entry per attempt), ``llm`` a text_prompt's answer (one per LLM call), ``prompt_branches``
the results of a conditional's (or while loop's) natural-language criteria. A list in place of
one entry is consumed one entry per execution; the last entry repeats once the list runs out.
"""

from __future__ import annotations

from typing import Any

_MISSING = object()
#: An ``llm`` entry ``{"raise": "message"}`` makes the LLM call raise (``LLM call failed: …``).
LLM_RAISE_KEY = "raise"


class Stubs:
    def __init__(self, case: dict[str, Any]) -> None:
        self._tables = {name: dict(case.get(name) or {}) for name in ("blocks", "tasks", "llm", "prompt_branches")}
        self._used: dict[tuple[str, str], int] = {}

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
            key = (table, label)
            index = self._used.get(key, 0)
            self._used[key] = index + 1
            return entry[min(index, len(entry) - 1)]
        return entry


def _is_sequence_of_entries(table: str, entry: list[Any]) -> bool:
    # ``prompt_branches`` maps a label to one list of booleans per evaluation; a list of such
    # lists is a sequence of evaluations. Every other table's list is a sequence of entries.
    if table == "prompt_branches":
        return bool(entry) and all(isinstance(item, list) for item in entry)
    return True
