"""A stored run as the service's replies show it (release 1.0.56, recorded from the real app:
``tests/data/runs/real-1.0.56.json``).

* ``run_reply``: ``WorkflowRunResponse`` (start a run, ``GET /v1/runs/{id}``);
* ``status_reply``: ``WorkflowRunResponseBase`` (the legacy ``/api/v1/workflows/...runs`` reads);
* ``webhook_payload``: the status reply updated with the run reply, as the webhook sends it;
* ``timeline``: the run's block rows as ``WorkflowRunTimeline`` items, newest first.

Key order is the service's; values the mock has no source for (recordings, screenshots,
costs, browser sessions) are the service's empty values for a run without a browser.
"""

from __future__ import annotations

from typing import Any

APP_URL = "http://localhost:8080"  # the service's SKYVERN_APP_URL default
#: the service's classifier finds no keyword in a run the mock failed: its fallback entry
UNKNOWN_FAILURE = [{"category": "UNKNOWN", "confidence_float": 0.5, "reasoning": "No keyword match found"}]
REQUEST_KEYS = ("workflow_id", "parameters", "title", "proxy_location", "webhook_url", "totp_url", "totp_identifier",
                "browser_session_id", "reuse_browser_session", "browser_profile_id", "start_fresh_browser",
                "max_screenshot_scrolls", "max_elapsed_time_minutes", "extra_http_headers", "cdp_connect_headers",
                "browser_address", "ai_fallback", "run_with", "browser_type", "run_metadata", "file_ids")
BLOCK_KEYS = ("workflow_run_block_id", "block_workflow_run_id", "workflow_run_id", "attempt_number", "organization_id",
              "description", "parent_workflow_run_block_id", "block_type", "label", "status", "output",
              "continue_on_failure", "failure_reason", "error_codes", "engine", "task_id", "url", "final_url",
              "finish_reason", "navigation_goal", "navigation_payload", "data_extraction_goal", "data_schema",
              "terminate_criterion", "complete_criterion", "actions", "created_at", "modified_at",
              "include_action_history_in_verification", "include_extracted_text", "duration", "loop_values",
              "current_value", "current_index", "recipients", "attachments", "subject", "body", "prompt",
              "instructions", "positive_descriptor", "negative_descriptor", "executed_branch_id",
              "executed_branch_expression", "executed_branch_result", "executed_branch_next_block", "script_run",
              "downloaded_file_count")
BLOCK_DEFAULTS = {"error_codes": [], "actions": [], "include_action_history_in_verification": False,
                  "include_extracted_text": True, "attempt_number": 1}


def _final(record: dict[str, Any]) -> bool:
    from ..store.runs import FINAL

    return record["status"] in FINAL


def _attempts(record: dict[str, Any]) -> list[dict[str, Any]]:
    if record.get("queued_at") is None:
        return []
    final = _final(record)
    return [{"attempt_number": 1, "status": record["status"],
             "failure_reason": record.get("failure_reason"), "error_codes": [],
             "started_at": record.get("started_at"), "finished_at": record.get("finished_at") if final else None,
             "retry_decision": None, "decision_reason": None, "next_attempt_at": None, "webhook_sent_at": None}]


def _failure_category(record: dict[str, Any]) -> list[dict[str, Any]] | None:
    """A failed run's categories: its user-defined errors (``raise ErrorCode``) when it has
    some, as the service reports them, else the classifier's fallback (the mock does not
    model its keyword rules)."""
    if record["status"] != "failed":
        return None
    declared = [e for e in record.get("errors") or [] if isinstance(e, dict) and e.get("error_type") == "USER_DEFINED_ERROR"]
    if declared:
        return [{"category": e.get("error_code"), "confidence_float": e.get("confidence_float", 1.0),
                 "reasoning": e.get("reasoning")} for e in declared]
    return [dict(c) for c in UNKNOWN_FAILURE]


def rebuilt_request(record: dict[str, Any]) -> dict[str, Any]:
    """The ``run_request`` a read shows: rebuilt from the run, not the request as sent."""
    request = dict.fromkeys(REQUEST_KEYS)
    request.update({"workflow_id": record["workflow_permanent_id"], "parameters": record["parameters"],
                    "title": record["workflow_title"], "proxy_location": record["proxy_location"],
                    "webhook_url": record.get("webhook_url") or None, "totp_url": record.get("totp_url") or None,
                    "totp_identifier": record.get("totp_identifier"), "start_fresh_browser":
                    bool(record.get("start_fresh_browser")), "reuse_browser_session": record.get("reuse_browser_session"),
                    "browser_type": None})
    return request


def run_reply(record: dict[str, Any], *, as_created: bool = False) -> dict[str, Any]:
    """``WorkflowRunResponse``; ``as_created`` is the start reply (the request as sent, the
    snapshot taken when the run was written)."""
    created = as_created
    return {
        "run_id": record["run_id"], "status": record["status"], "output": None if created else record.get("output"),
        "downloaded_files": None if created else [], "recording_url": None, "recording_archived": False,
        "screenshot_urls": None, "failure_reason": record.get("failure_reason"),
        "created_at": record["created_at"], "modified_at": record["modified_at"],
        "queued_at": record.get("queued_at"), "started_at": record.get("started_at"),
        "finished_at": record.get("finished_at"), "app_url": f"{APP_URL}/runs/{record['run_id']}",
        "browser_session_id": None, "browser_profile_id": None, "max_screenshot_scrolls": None,
        "script_run": None, "errors": None if created else list(record.get("errors") or []),
        "step_count": None if created else 0, "run_type": "workflow_run", "attempt": 1, "retry_pending": False,
        "next_attempt_at": None, "attempts": [] if created else _attempts(record), "run_with": record["run_with"],
        "ai_fallback": record.get("ai_fallback"), "script_id": None, "browser_seed_source": "fresh",
        "browser_settings_receipt": None,
        "run_request": record["request_echo"] if created else rebuilt_request(record),
    }


def status_reply(record: dict[str, Any], *, steps_counted: bool = False) -> dict[str, Any]:
    """``WorkflowRunResponseBase``; ``steps_counted``: the webhook and the read by workflow and
    run id count steps (0 without a browser), the read by run id alone leaves ``null``."""
    errors = record.get("errors") or []
    return {
        "workflow_id": record["workflow_permanent_id"], "workflow_run_id": record["run_id"],
        "status": record["status"], "attempt": 1, "retry_pending": False, "next_attempt_at": None,
        "attempts": _attempts(record), "failure_reason": record.get("failure_reason"),
        "failure_category": _failure_category(record), "retried_from_workflow_run_id": None,
        "retried_by_workflow_run_id": None, "proxy_location": record["proxy_location"],
        "webhook_callback_url": record.get("webhook_url") or None,
        "webhook_failure_reason": record.get("webhook_failure_reason"),
        "totp_verification_url": record.get("totp_url") or None, "totp_identifier": record.get("totp_identifier"),
        "extra_http_headers": record.get("extra_http_headers"), "cdp_connect_headers": None,
        "queued_at": record.get("queued_at"), "started_at": record.get("started_at"),
        "finished_at": record.get("finished_at"), "created_at": record["created_at"],
        "modified_at": record["modified_at"], "parameters": record["parameters"], "screenshot_urls": None,
        "recording_url": None, "recording_urls": None, "recording_archived": False, "downloaded_files": [],
        "downloaded_file_urls": None, "outputs": record.get("output"), "total_steps": 0 if steps_counted else None,
        "total_cost": None, "credits_used": 0, "cached_credits_used": 0, "task_v2": None,
        "workflow_title": record["workflow_title"], "browser_session_id": None, "browser_profile_id": None,
        "browser_seed_source": "fresh", "browser_sink_profile_id": None, "max_screenshot_scrolls": None,
        "browser_address": None, "run_with": record["run_with"], "browser_type": None, "script_run": None,
        "script_id": None, "errors": list(errors), "agent_id": record["workflow_permanent_id"],
        "agent_run_id": record["run_id"],
    }


def webhook_payload(record: dict[str, Any]) -> dict[str, Any]:
    """What the webhook sends: the status reply, then the run reply's keys over it."""
    payload = status_reply(record, steps_counted=True)
    payload.update(run_reply(record))  # the service's dict.update: new keys land after the status keys
    return payload


def legacy_started(record: dict[str, Any]) -> dict[str, Any]:
    """``RunWorkflowResponse`` of ``POST /api/v1/workflows/{wpid}/run``."""
    return {"workflow_id": record["workflow_permanent_id"], "workflow_run_id": record["run_id"],
            "agent_id": record["workflow_permanent_id"], "agent_run_id": record["run_id"]}


def timeline(record: dict[str, Any], rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Block rows as timeline items: children under their parent, newest first at each level."""
    items: dict[str, dict[str, Any]] = {}
    roots: list[dict[str, Any]] = []
    for row in sorted(rows, key=lambda r: (r["created_at"], r.get("position", 0)), reverse=True):
        block = dict.fromkeys(BLOCK_KEYS)
        block.update({k: (list(v) if isinstance(v, list) else v) for k, v in BLOCK_DEFAULTS.items()})
        block.update({k: row.get(k) for k in BLOCK_KEYS if k in row})
        block["workflow_run_id"] = record["run_id"]
        block["organization_id"] = record["organization_id"]
        item = {"type": "block", "attempt": 1, "block": block, "thought": None, "children": [],
                "created_at": row["created_at"], "modified_at": row["modified_at"]}
        items[row["workflow_run_block_id"]] = item
    for row in sorted(rows, key=lambda r: (r["created_at"], r.get("position", 0)), reverse=True):
        item = items[row["workflow_run_block_id"]]
        parent = items.get(row.get("parent_workflow_run_block_id") or "")
        (parent["children"] if parent is not None else roots).append(item)
    return roots
