"""Building the stored workflow object of a new version (reference §2.2, §9.4, §9.9.1).

``build_workflow`` applies the service's normalisations (proxy location, run_with, clamps,
header clearing, ...) and, on update, the inheritance rules: which omitted fields keep the
previous version's value and which fall back to the request default. The rules themselves
are declared in the model (``REQUEST.extra["on_update_omitted"]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel

from ... import model as M
from . import render
from .webhook_url import normalize_webhook_url

#: response key order (§9.9.1); the optional keys are placed by ``present``
WORKFLOW_KEYS = (
    "workflow_id", "organization_id", "title", "workflow_permanent_id", "version", "is_saved_task",
    "is_template", "description", "workflow_definition", "proxy_location", "webhook_callback_url",
    "totp_verification_url", "totp_identifier", "persist_browser_session", "reuse_browser_session",
    "mask_secrets", "pin_saved_session_ip", "browser_profile_id", "browser_profile_key", "model",
    "status", "max_screenshot_scrolls", "max_elapsed_time_minutes", "extra_http_headers",
    "cdp_connect_headers", "run_with", "browser_type", "ai_fallback", "cache_key",
    "adaptive_caching", "enable_self_healing", "code_version", "generate_script_on_terminal",
    "run_sequentially", "sequential_key", "folder_id", "import_error", "created_by", "edited_by",
    "copilot_authored", "effective_default_engine", "original_created_by", "original_created_at",
    "created_at", "modified_at", "deleted_at", "agent_id",
)
MASK = "***"


@dataclass
class Submission:
    """A validated request: the pydantic object, its plain dump, and which keys were sent."""

    request: BaseModel
    data: dict[str, Any]
    sent: set[str]
    definition_sent: set[str]


def submission(request: BaseModel) -> Submission:
    return Submission(request, request.model_dump(mode="json"), set(request.model_fields_set),
                      set(request.workflow_definition.model_fields_set))


def _proxy_location(request: BaseModel) -> Any:
    value = request.proxy_location
    if isinstance(value, BaseModel):  # a valid GeoTarget, stored normalised
        return value.model_dump(mode="json")
    if isinstance(value, dict):  # an object that failed GeoTarget: stored as null
        return None
    return getattr(value, "value", value)


def _run_with(value: str | None) -> str:
    value = {None: "agent", "ai": "agent", "code_v2": "code"}.get(value, value)
    return value if value in ("agent", "code") else "agent"


def _settings(sub: Submission, previous: dict[str, Any] | None) -> dict[str, Any]:
    """The top-level settings of the new version, before ids and the definition."""
    data = sub.data
    values = {name: data.get(name) for name in M.REQUEST.field_names if name != "workflow_definition"}
    values["proxy_location"] = _proxy_location(sub.request)
    low, high = M.REQUEST.extra["clamp"]["max_screenshot_scrolls"]
    if values["max_screenshot_scrolls"] is not None:
        values["max_screenshot_scrolls"] = min(max(values["max_screenshot_scrolls"], low), high)
    key = values["browser_profile_key"]
    values["browser_profile_key"] = key.strip() or None if isinstance(key, str) else key
    values["run_with"] = _run_with(values["run_with"])
    if values["webhook_callback_url"]:
        values["webhook_callback_url"] = normalize_webhook_url(values["webhook_callback_url"].strip())
    for name in ("extra_http_headers", "cdp_connect_headers"):
        if name in sub.sent and not values[name]:
            values[name] = {}  # an explicit null or {} clears
    if previous is None:
        for name, fill in M.REQUEST.extra["create_null_fill"].items():
            if values[name] is None:
                values[name] = fill
        return values
    for name, rule in M.REQUEST.extra["on_update_omitted"].items():
        absent = name not in sub.sent
        if (rule == "kept" and absent) or (rule == "kept_if_absent" and absent) \
                or (rule == "kept_if_null" and values[name] is None) or rule == "kept_always":
            values[name] = previous.get(name)
    headers = values["cdp_connect_headers"]
    if "cdp_connect_headers" in sub.sent and headers:
        old = previous.get("cdp_connect_headers") or {}
        values["cdp_connect_headers"] = {k: old.get(k, v) if v == MASK else v for k, v in headers.items()}
    return values


def build_workflow(
    sub: Submission,
    *,
    previous: dict[str, Any] | None,
    organization_id: str,
    wpid: str,
    version: int,
    workflow_id: str,
    now: str,
    new_id: Callable[[str], str],
    folder_id: str | None,
) -> tuple[dict[str, Any], list[str]]:
    """The stored workflow object of a new version and its search terms."""
    values = _settings(sub, previous)
    if previous is None:
        values["folder_id"] = folder_id
    definition = sub.data["workflow_definition"]
    if "browser_settings" in sub.definition_sent:
        settings = definition.get("browser_settings")
    else:
        settings = ((previous or {}).get("workflow_definition") or {}).get("browser_settings")
    ctx = render.RenderContext(workflow_id=workflow_id, now=now, new_id=new_id)
    stored_definition = render.render_definition(definition, ctx, settings, settings is not None)
    doc = {
        "workflow_id": workflow_id, "organization_id": organization_id, "title": values["title"],
        "workflow_permanent_id": wpid, "version": version, "is_saved_task": values["is_saved_task"],
        "is_template": False, "description": values["description"],
        "workflow_definition": stored_definition,
        **{k: values[k] for k in WORKFLOW_KEYS if k in values and k not in ("title", "description", "is_saved_task")},
        "import_error": None, "created_by": (previous or {}).get("created_by"), "edited_by": None,
        "copilot_authored": False, "created_at": now, "modified_at": now, "deleted_at": None,
        "agent_id": wpid,
    }
    return doc, render.search_terms(stored_definition)


def present(doc: dict[str, Any], *, get_one: bool = False, listed: bool = False) -> dict[str, Any]:
    """A stored workflow object as a reply: keys in the service's order, secrets masked,
    ``effective_default_engine`` only for get-one, ``original_*`` filled only in lists."""
    out: dict[str, Any] = {}
    for key in WORKFLOW_KEYS:
        if key == "effective_default_engine":
            if get_one:
                out[key] = None
            continue
        if key in ("original_created_by", "original_created_at"):
            out[key] = doc.get(key) if listed else None
            continue
        out[key] = doc.get(key)
    headers = out.get("cdp_connect_headers")
    if headers:
        out["cdp_connect_headers"] = {k: MASK for k in headers}
    return out
