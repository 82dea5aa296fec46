"""Normalising engine traces: engine-made ids and timestamps out, so two runs compare equal.

The one normaliser of traces, pure standard library: ``real_engine.py`` (the release's Python)
prints its traces through ``normalise``; the comparisons of the simulator with the engine
(``tests/engine_diff.py``, ``differential.py``) read both sides through
``normalise(..., for_comparison=True)``, which also masks what differs between two runs of one
case on two machines (every ``*_id``/``*_at`` key, UUIDs, HTTP dates, datetime reprs, the
engine's random prompt-branch keys).
"""

from __future__ import annotations

import re
from typing import Any

ID_RE = re.compile(r"\b(?:wr|wrb|w|wpid|tsk|stp|o|a|op|wp|oat|tr|cr)_(?:\d{12,}|simulated)\b")
UUID_RE = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
#: an HTTP Date header quoted inside text (a code block that repeats a response)
HTTP_DATE_RE = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT\b")
#: a Python datetime repr inside text (an object printed into a prompt or a reason)
DATETIME_REPR_RE = re.compile(r"datetime\.datetime\((?:[\d, ]|%20)+\)")
#: the engine names a natural-language branch's answer key with a random suffix
RANDOM_KEY_RE = re.compile(r"\b(prompt_branch_eval_)[A-Za-z0-9]{5}\b")
VOLATILE_SUFFIXES = ("_id", "_ids", "_at")
# engine-made ids and timestamps (a user's own `record_id` output stays)
VOLATILE_KEYS = frozenset({
    "task_id", "step_id", "workflow_run_id", "workflow_run_block_id", "workflow_id", "workflow_permanent_id",
    "organization_id", "output_parameter_id", "branch_id", "run_id", "agent_id", "agent_run_id",
    "task_screenshot_artifact_ids", "workflow_screenshot_artifact_ids", "downloaded_file_artifact_ids",
    "artifact_id", "browser_session_id", "retried_from_workflow_run_id", "retried_by_workflow_run_id",
    "created_at", "modified_at", "queued_at", "started_at", "finished_at", "next_attempt_at", "webhook_sent_at",
})
VOLATILE_HEADERS = frozenset({"date"})
#: response headers that say when and by whom, not what (two machines differ in them)
VOLATILE_HEADERS_COMPARED = frozenset({"date", "server", "content-length"})


def normalise(value: Any, *, for_comparison: bool = False) -> Any:
    """Drop ids and timestamps; reduce a loop output's ``output_parameter`` to its key.
    ``for_comparison`` drops every ``*_id``/``*_ids``/``*_at`` key (a user's own ``record_id``
    output too) and masks the run-dependent text above."""
    if isinstance(value, dict):
        headers = VOLATILE_HEADERS_COMPARED if for_comparison else VOLATILE_HEADERS
        out = {}
        for key, item in value.items():
            if key == "output_parameter" and isinstance(item, dict) and "key" in item:
                out[key] = item["key"]
                continue
            if key in VOLATILE_KEYS or (for_comparison and key.endswith(VOLATILE_SUFFIXES)):
                continue
            if key in ("response_headers", "headers") and isinstance(item, dict):
                out[key] = {k: v for k, v in item.items() if k.lower() not in headers}
                continue
            out[key] = normalise(item, for_comparison=for_comparison)
        return out
    if isinstance(value, list):
        return [normalise(v, for_comparison=for_comparison) for v in value]
    if isinstance(value, str):
        value = ID_RE.sub("<id>", value)
        if for_comparison:
            value = HTTP_DATE_RE.sub("<date>", RANDOM_KEY_RE.sub(r"\1<random>", value))
            value = UUID_RE.sub("<uuid>", DATETIME_REPR_RE.sub("<datetime>", value))
        return value
    return value


def mask(value: Any) -> Any:
    """Like ``normalise`` but keeps every key: an engine id or timestamp becomes ``"<volatile>"``
    (used for what reached the loopback server, whose key sets are worth comparing)."""
    if isinstance(value, dict):
        return {k: ("<volatile>" if k in VOLATILE_KEYS and v is not None else mask(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [mask(v) for v in value]
    if isinstance(value, str):
        return ID_RE.sub("<id>", value)
    return value
