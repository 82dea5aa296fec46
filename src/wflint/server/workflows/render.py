"""The stored (run-time) form of a definition, as the service returns it (reference §9.9.2).

Input is the validated request definition as plain data (defaults applied, enums as values);
output is what the service stores: an ``output`` parameter per block, ids and timestamps on
every parameter, ``parameter_keys`` replaced by full parameter objects, the values the
conversion fills in (§6.6), and so on. Which fields a type stores, and how, comes from the
declarative model's ``extra`` facts; this module only knows the general shapes.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

from ... import model as M
from ...checks import service_checks

#: the service replaces a blank login goal with its built-in prompt; its exact text is not
#: published, so the mock stores this one (see DIFFERENCES.md)
BUILTIN_LOGIN_PROMPT = (
    "If you're not on the login page, navigate to login page and login using the credentials "
    "given. First, take actions on promising login buttons or links. If you're on the login "
    "page, fill in the username and password, and submit the form. If you're logged in, "
    "complete the task. If there's a one-time code requirement, fill it in. If the login "
    "fails, terminate."
)
_FILLERS = {"builtin_login_prompt": BUILTIN_LOGIN_PROMPT}

#: values of the task-style stored fields a type does not declare itself
_TASK_STYLE_DEFAULTS: dict[str, Any] = {
    "url": None, "title": "", "complete_criterion": None, "complete_criterion_is_untrusted": False,
    "terminate_criterion": None, "navigation_goal": None, "data_extraction_goal": None,
    "data_schema": None, "error_code_mapping": None, "max_retries": 0, "max_steps_per_run": None,
    "complete_on_download": False, "download_suffix": None, "totp_verification_url": None,
    "totp_identifier": None, "complete_verification": True,
    "include_action_history_in_verification": False, "download_timeout": None,
}
_COMMON = {f.name for f in M.COMMON_BLOCK_FIELDS}


@dataclass
class RenderContext:
    workflow_id: str
    now: str
    new_id: Callable[[str], str]
    #: every stored parameter by key (outputs, declared, context, SMTP): what blocks refer to
    by_key: dict[str, dict[str, Any]] = field(default_factory=dict)
    added_smtp: list[dict[str, Any]] = field(default_factory=list)

    def meta(self, zoned: bool) -> dict[str, Any]:
        stamp = self.now + ("Z" if zoned else "")
        return {"created_at": stamp, "modified_at": stamp, "deleted_at": None}


# --------------------------------------------------------------------------- parameters


def _walk(blocks: list[dict[str, Any]]):
    """Depth-first: a block, then its loop body."""
    for b in blocks:
        yield b
        yield from _walk(b.get("loop_blocks") or [])


def _output_parameter(label: str, ctx: RenderContext) -> dict[str, Any]:
    return {
        "parameter_type": "output", "key": f"{label}_output",
        "description": f"Output parameter for block {label}",
        "output_parameter_id": ctx.new_id("op"), "workflow_id": ctx.workflow_id, **ctx.meta(False),
    }


def _declared_parameter(p: dict[str, Any], ctx: RenderContext) -> dict[str, Any]:
    kind = p["parameter_type"]
    spec = M.PARAMETER_TYPES[kind]
    own = {f.name: p.get(f.name) for f in spec.fields if f.name not in ("key", "description")}
    if kind == "workflow":
        own["default_value"], _ = service_checks.coerce_default_value(own["workflow_parameter_type"], own["default_value"])
    if kind == "credential":
        own["credential_id"], own["credential_ids"], own["fallback_credential_ids"] = (
            service_checks.normalize_credential_ids(own["credential_id"], own["credential_ids"],
                                           own["fallback_credential_ids"]))
    return {
        "parameter_type": kind, "key": p["key"], "description": p.get("description"),
        spec.extra["id_field"]: ctx.new_id(spec.extra["id_prefix"].rstrip("_")),
        "workflow_id": ctx.workflow_id, **own, **ctx.meta(True),
    }


def render_parameters(definition: dict[str, Any], ctx: RenderContext) -> list[dict[str, Any]]:
    """Outputs (block order), declared non-context, context; SMTP ones are appended later."""
    out = [_output_parameter(b["label"], ctx) for b in _walk(definition["blocks"])]
    for p in definition["parameters"]:
        if p["parameter_type"] not in ("context", "output"):
            out.append(_declared_parameter(p, ctx))
    for p in out:
        ctx.by_key.setdefault(p["key"], p)
    for p in definition["parameters"]:
        if p["parameter_type"] == "context":
            stored = {"parameter_type": "context", "key": p["key"], "description": p.get("description"),
                      "source": ctx.by_key.get(p["source_parameter_key"]), "value": None}
            out.append(stored)
            ctx.by_key.setdefault(p["key"], stored)
    return out


# --------------------------------------------------------------------------- blocks


def _aws_secret(key: str, description: str, aws_key: str, ctx: RenderContext,
                placeholder: str | None = None) -> dict[str, Any]:
    return {
        "parameter_type": "aws_secret", "key": key, "description": description,
        "aws_secret_parameter_id": placeholder or ctx.new_id("asp"),
        "workflow_id": "" if placeholder else ctx.workflow_id, "aws_key": aws_key, **ctx.meta(not placeholder),
    }


def _smtp_parameters(b: dict[str, Any], spec: Any, ctx: RenderContext) -> dict[str, Any]:
    """§6.6: placeholders for custom SMTP and Gmail; declared or added secrets otherwise."""
    slots: dict[str, str] = spec.extra["smtp_slots"]
    gmail = b.get("transport") == "gmail"
    custom = bool((b.get("custom_smtp_host") or "").strip())
    out = {}
    for slot, override in slots.items():
        if gmail:
            out[slot] = _aws_secret(f"gmail-unused-{slot}", "Unused placeholder; this block sends via Gmail.",
                                    "UNUSED_CUSTOM_SMTP_PLACEHOLDER", ctx, f"placeholder_{slot}")
            continue
        key = b.get(override) or slot
        declared = ctx.by_key.get(key)
        if custom:
            out[slot] = declared if declared and declared["parameter_type"] == "aws_secret" else _aws_secret(
                slot, "Unused placeholder; this block sends via custom SMTP.",
                "UNUSED_CUSTOM_SMTP_PLACEHOLDER", ctx, f"placeholder_{slot}")
        elif declared is not None:
            out[slot] = declared
        else:
            added = _aws_secret(key, f"Skyvern platform SMTP {slot.split('_', 1)[1]}",
                                spec.extra["smtp_platform_aws_keys"][slot], ctx)
            ctx.by_key[key] = added
            ctx.added_smtp.append(added)
            out[slot] = added
    return out


def _block_parameters(b: dict[str, Any], ctx: RenderContext) -> list[dict[str, Any]]:
    return [ctx.by_key[k] for k in (b.get("parameter_keys") or []) if k in ctx.by_key]


def _llm_key(value: Any) -> Any:
    """Blank → null; templates kept; the mock knows no internal keys, so others are dropped."""
    if isinstance(value, str) and ("{{" in value or "{%" in value):
        return value
    return None


def _type_fields(b: dict[str, Any], spec: Any, ctx: RenderContext) -> dict[str, Any]:
    extra = spec.extra
    replaces: dict[str, str] = extra.get("stored_replaces", {})
    not_stored = set(extra.get("not_stored", ())) | {"engine", "engine_pinned"}
    out: dict[str, Any] = {}
    smtp = _smtp_parameters(b, spec, ctx) if "smtp_slots" in extra else {}
    for f in spec.fields:
        name = f.name
        if name in not_stored:
            continue
        value = b.get(name)
        if name == "parameter_keys":
            out["parameters"] = _block_parameters(b, ctx)
        elif name in smtp or replaces.get(name) in smtp:
            slot = replaces.get(name, name)
            out[slot] = smtp[slot]
        elif name == "loop_over_parameter_key":
            out[replaces.get(name, name)] = ctx.by_key.get(value) if value else None
        elif name == "loop_blocks":
            out[name] = [render_block(child, ctx) for child in value]
        elif name == "branch_conditions":
            out[name] = [_branch(br) for br in value]
        elif name == "llm_key":
            out[name] = _llm_key(value)
        elif name in extra.get("stored_rebuilt", ()):
            out[name] = None  # code.steps: rebuilt by the service; the mock derives none
        elif name == "endpoint_url":
            out[name] = value if isinstance(value, str) and value.strip() else None
        else:
            out[name] = value
    for name in extra.get("stored_null_to_empty_list", ()):
        if out.get(name) is None:
            out[name] = []
    out.update(extra.get("stored_added", {}))
    if extra.get("stored_parameters") and "parameters" not in out:
        out["parameters"] = []
    return out


def _branch(br: dict[str, Any]) -> dict[str, Any]:
    criteria = br.get("criteria")
    if criteria is not None:
        criteria = {"criteria_type": criteria.get("criteria_type", "jinja2_template"),
                    "expression": criteria.get("expression"), "description": criteria.get("description")}
    return {"id": str(uuid.uuid4()), "criteria": criteria, "next_block_label": br.get("next_block_label"),
            "description": br.get("description"), "is_default": br.get("is_default", False)}


def _task_style(b: dict[str, Any], spec: Any, fields: dict[str, Any]) -> dict[str, Any]:
    extra = spec.extra
    out: dict[str, Any] = {}
    for name in M.TASK_STYLE_STORED_FIELDS:
        if name == "task_type":
            out[name] = extra.get("task_type", "general")
        elif name == "include_extracted_text":
            out[name] = extra.get("include_extracted_text", True)
        elif name in fields:
            out[name] = fields.pop(name)
        else:
            out[name] = _TASK_STYLE_DEFAULTS.get(name)
    for name, value in extra.get("stored_fill_if_null", {}).items():
        if out.get(name) is None:
            out[name] = value
    for name, filler in extra.get("stored_fill_if_blank", {}).items():
        if not (out.get(name) or "").strip():
            out[name] = _FILLERS.get(filler, filler)
    out.update(extra.get("stored_force", {}))
    out.update(fields)  # the type's own extra fields follow the shared set
    engine = extra.get("stored_engine") or b.get("engine")
    if engine is not None:
        out["engine"] = engine
    return out


def render_block(b: dict[str, Any], ctx: RenderContext) -> dict[str, Any]:
    spec = M.BLOCK_TYPES[b["block_type"]]
    label = b["label"]
    head = {
        "label": label, "next_block_label": b.get("next_block_label"), "block_type": b["block_type"],
        "output_parameter": ctx.by_key.get(f"{label}_output") or _output_parameter(label, ctx),
        "continue_on_failure": b.get("continue_on_failure", False), "model": b.get("model"),
        "disable_cache": b.get("disable_cache", False),
        "ignore_workflow_system_prompt": b.get("ignore_workflow_system_prompt", False),
        "next_loop_on_failure": b.get("next_loop_on_failure", False),
    }
    fields = {k: v for k, v in _type_fields(b, spec, ctx).items() if k not in head or k == "disable_cache"}
    head["disable_cache"] = fields.pop("disable_cache", head["disable_cache"])
    for name, value in spec.extra.get("server_defaults", {}).items():
        if fields.get(name) is None:
            fields[name] = value
    if spec.extra.get("task_style"):
        fields = _task_style(b, spec, fields)
    return {**head, **fields}


# --------------------------------------------------------------------------- definition


def render_definition(definition: dict[str, Any], ctx: RenderContext,
                      browser_settings: dict[str, Any] | None, has_browser_settings: bool) -> dict[str, Any]:
    """The stored definition. ``browser_settings`` is already resolved (given, or inherited
    from the previous version); it is shown only when ``has_browser_settings``."""
    parameters = render_parameters(definition, ctx)
    blocks = [render_block(b, ctx) for b in definition["blocks"]]
    retry = definition.get("retry_policy")
    stored = {
        "version": definition.get("version"),
        "parameters": parameters + ctx.added_smtp,
        "blocks": blocks,
        "finally_block_label": definition.get("finally_block_label"),
        "error_code_mapping": definition.get("error_code_mapping"),
        "retry_policy": None if retry is None else {
            "max_retries": retry["max_retries"], "delay_seconds": retry["delay_seconds"],
            "webhook_on_retry": retry["webhook_on_retry"], "retry_on": retry["retry_on"]},
        "workflow_system_prompt": definition.get("workflow_system_prompt"),
        "completion_contract": definition.get("completion_contract"),
    }
    if has_browser_settings:
        stored["browser_settings"] = browser_settings
    return stored


_SEARCHED_TYPES = {"workflow", "output", "aws_secret", "bitwarden_login_credential",
                   "bitwarden_sensitive_information", "bitwarden_credit_card_data", "onepassword",
                   "azure_vault_credential", "credential"}


def search_terms(stored_definition: dict[str, Any]) -> list[str]:
    """The parameter texts list search matches (§9.6): keys and descriptions of every stored
    parameter except context ones, and workflow defaults as stored text."""
    import json

    terms: list[str] = []
    for p in stored_definition["parameters"]:
        if p["parameter_type"] not in _SEARCHED_TYPES:
            continue
        terms.append(p["key"])
        if p.get("description"):
            terms.append(p["description"])
        if p["parameter_type"] == "workflow" and p.get("default_value") is not None:
            v = p["default_value"]
            terms.append(v if isinstance(v, str) else json.dumps(v))
    return terms
