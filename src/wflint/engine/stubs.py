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


#: the statuses a stubbed block or task may end in (those the engine's blocks end in)
STUB_STATUSES = ("completed", "failed", "terminated", "canceled", "timed_out")


def table_problem(case: dict[str, Any]) -> str | None:
    """What makes a case's stub table unusable by a run (a run would crash on it, or record a
    status no run can have), or None. ``blocks`` / ``tasks`` / ``llm`` / ``prompt_branches``
    must already be objects keyed by label."""
    for table in ("blocks", "tasks"):
        for label, entry in (case.get(table) or {}).items():
            for i, item in enumerate(entry if isinstance(entry, list) else [entry]):
                where = f"{table}.{label}" + (f"[{i}]" if isinstance(entry, list) else "")
                problem = _entry_problem(table, item)
                if problem:
                    return f"{where}: {problem}"
    for label, entry in (case.get("llm") or {}).items():
        for i, item in enumerate(entry if isinstance(entry, list) else [entry]):
            if isinstance(item, dict) and LLM_RAISE_KEY in item and not isinstance(item[LLM_RAISE_KEY], str):
                return f"llm.{label}" + (f"[{i}]" if isinstance(entry, list) else "") + ": 'raise' must be a message (a string)"
    for label, entry in (case.get("prompt_branches") or {}).items():
        flat = [x for item in entry for x in (item if isinstance(item, list) else [item])] if isinstance(entry, list) else [entry]
        if not all(isinstance(x, bool) for x in flat):
            return (f"prompt_branches.{label}: expected true/false, a list of them (one per branch) or a list of "
                    "such lists (one per evaluation)")
    return None


def _entry_problem(table: str, item: Any) -> str | None:
    if table == "tasks" and not isinstance(item, dict):
        return "a task's outcome must be an object ({status, extracted_information, failure_reason, errors})"
    if not isinstance(item, dict):
        return None  # a bare ``blocks`` value is the block's output
    status = item.get("status")
    if status is not None and status not in STUB_STATUSES:
        return f"status must be one of {', '.join(STUB_STATUSES)} (got {status!r})"
    for key in ("fail", "failure_reason"):
        if item.get(key) is not None and not isinstance(item[key], str):
            return f"{key} must be a string (the failure reason)"
    if table == "tasks" and item.get("errors") is not None and not isinstance(item["errors"], list):
        return "errors must be a list"
    return None
