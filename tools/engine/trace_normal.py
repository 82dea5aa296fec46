"""Normalising engine traces: engine-made ids and timestamps out, so two runs compare equal.

Pure standard library: imported by ``real_engine.py`` (the release's Python) and by tests.
"""

from __future__ import annotations

import re
from typing import Any

ID_RE = re.compile(r"\b(?:wr|wrb|w|wpid|tsk|stp|o|a|op|wp|oat|tr|cr)_\d{12,}\b")
# engine-made ids and timestamps (a user's own `record_id` output stays)
VOLATILE_KEYS = frozenset({
    "task_id", "step_id", "workflow_run_id", "workflow_run_block_id", "workflow_id", "workflow_permanent_id",
    "organization_id", "output_parameter_id", "branch_id", "run_id", "agent_id", "agent_run_id",
    "task_screenshot_artifact_ids", "workflow_screenshot_artifact_ids", "downloaded_file_artifact_ids",
    "artifact_id", "browser_session_id", "retried_from_workflow_run_id", "retried_by_workflow_run_id",
    "created_at", "modified_at", "queued_at", "started_at", "finished_at", "next_attempt_at", "webhook_sent_at",
})
VOLATILE_HEADERS = ("date",)


def normalise(value: Any) -> Any:
    """Drop ids and timestamps; reduce a loop output's ``output_parameter`` to its key."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key == "output_parameter" and isinstance(item, dict) and "key" in item:
                out[key] = item["key"]
                continue
            if key in VOLATILE_KEYS:
                continue
            if key in ("response_headers", "headers") and isinstance(item, dict):
                item = {k: v for k, v in item.items() if k.lower() not in VOLATILE_HEADERS}
            out[key] = normalise(item)
        return out
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str):
        return ID_RE.sub("<id>", value)
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
