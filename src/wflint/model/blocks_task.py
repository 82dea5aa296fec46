"""The 9 task-style block types (§5.6.1, 12-16, 18, 19, 22; stored form §9.9.2).

They share one stored field set (``blocks.TASK_STYLE_STORED_FIELDS``) with a ``task_type`` and
an ``include_extracted_text`` value; ``extra`` records those and the values the conversion fills
in (§6.6) so the mock server can render the stored form.
"""

from __future__ import annotations

from typing import Any

from . import enums as E
from .blocks import (
    block, data_schema, disable_cache, download_suffix, engine_fields, error_code_mapping,
    max_retries, max_steps_per_run, parameter_keys, storage_fields, title, totp_fields, url,
)
from .types import Array, F, Field, FreeObject, Int, Num, ObjectModel, Str, flag, opt_str, text

ENGINE_NOTE = ("engine ui-tars is refused with 400 \"Block '{label}' uses the ui-tars engine, which "
               "is not enabled on this server\" where that engine is not enabled.")


def _task_style(task_type: str = "general", include_extracted_text: bool = True,
                **more: Any) -> dict[str, Any]:
    """Stored-form facts shared by task-style types."""
    return {
        "task_style": True,
        "task_type": task_type,
        "include_extracted_text": include_extracted_text,
        "stored_parameters": True,
        # engine is shown only when set, engine_pinned never
        "not_stored": ("engine_pinned",),
        **more,
    }


def _goal(required: bool = False, description: str = "What the agent should achieve.") -> Field:
    if required:
        return F("navigation_goal", Str(), description, required=True, templated="text")
    return text("navigation_goal", description)


def _extraction_goal(required: bool = False) -> Field:
    d = "What data to extract from the page."
    if required:
        return F("data_extraction_goal", Str(), d, required=True, templated="text")
    return text("data_extraction_goal", d)


def _criteria(untrusted: bool = False) -> tuple[Field, ...]:
    mid = ((flag("complete_criterion_is_untrusted", False,
                 "Treat the complete criterion as untrusted input.", since="1.0.48"),) if untrusted else ())
    return (
        text("complete_criterion", "Condition under which the block is complete."),
        *mid,
        text("terminate_criterion", "Condition under which the block terminates."),
    )


def _verification(history_since: str | None = None) -> tuple[Field, ...]:
    return (
        flag("complete_verification", True, "Verify completion with the LLM."),
        flag("include_action_history_in_verification", False,
             "Give the action history to the verification step.", since=history_since),
    )


def _download_flag() -> Field:
    return flag("complete_on_download", False, "Complete as soon as a file is downloaded.")


TASK = block(
    "task", "TaskBlockYAML", "General browser task (navigate and/or extract).",
    (
        url(), title(), *engine_fields(), _goal(), _extraction_goal(), data_schema(),
        error_code_mapping(), max_retries(), max_steps_per_run(), parameter_keys(),
        _download_flag(), download_suffix(), *totp_fields(), disable_cache(), *_criteria(),
        *_verification(),
    ),
    notes=(ENGINE_NOTE, "There is no prompt field on task: a prompt key is dropped silently."),
    **_task_style(),
)

VALIDATION = block(
    "validation", "ValidationBlockYAML", "Check page state (complete/terminate).",
    (
        *engine_fields(since="1.0.55"), *_criteria(), error_code_mapping(),
        max_steps_per_run("Step limit; stored as 2 when null.", since="1.0.55"), parameter_keys(),
        disable_cache(),
        flag("without_page_information", False, "Validate without page information.",
             since="1.0.47"),
    ),
    notes=(
        ENGINE_NOTE,
        "At least one of complete_criterion / terminate_criterion must be non-empty: 422 "
        "\"Validation block '{label}' requires at least one of complete_criterion or "
        "terminate_criterion\".",
    ),
    **_task_style("validation", stored_fill_if_null={"max_steps_per_run": 2}),
)

ACTION = block(
    "action", "ActionBlockYAML", "One browser action.",
    (
        url(), title(), *engine_fields(),
        _goal(description="The action to take; required by the service."),
        opt_str("selector", "CSS/XPath hint for the element."),
        F("ai_fallback", E.AI_FALLBACK_MODE, "How the selector and the AI are combined.",
          default="fallback"),
        error_code_mapping(), max_retries(),
        max_steps_per_run("Step limit; stored as 1 when null.", since="1.0.55"), parameter_keys(),
        _download_flag(), download_suffix(), *totp_fields(), disable_cache(),
    ),
    notes=(
        ENGINE_NOTE,
        "navigation_goal is optional in the model but required by the service: empty or missing "
        "gives 422 \"Action block '{label}' requires navigation_goal\".",
    ),
    **_task_style("action", stored_fill_if_null={"max_steps_per_run": 1},
                  stored_force={"complete_verification": False}),
)

NAVIGATION = block(
    "navigation", "NavigationBlockYAML", "Navigate toward a goal.",
    (
        _goal(required=True), url(), title(), *engine_fields(), error_code_mapping(),
        max_retries(), max_steps_per_run(), parameter_keys(), _download_flag(),
        download_suffix(), *totp_fields(), disable_cache(), *_criteria(untrusted=True),
        *_verification(),
    ),
    notes=(ENGINE_NOTE,),
    **_task_style(),
)

EXTRACTION = block(
    "extraction", "ExtractionBlockYAML", "Extract data from the page.",
    (
        _extraction_goal(required=True), url(), title(), *engine_fields(), data_schema(),
        max_retries(), max_steps_per_run(), parameter_keys(), disable_cache(),
        flag("export_enabled", False, "Also export the records as a Parquet file.", since="1.0.55"),
        F("export_data_schema", FreeObject(), "Schema of the exported records.",
          nullable=True, default=None, yaml11_sensitive=True, since="1.0.55"),
        text("export_file_name", "File name of the export.", since="1.0.55"),
        text("export_records", "Records to export.", since="1.0.55"),
    ),
    notes=(
        ENGINE_NOTE,
        "With export_enabled, export_data_schema must be a non-empty object: 422 \"Extraction "
        "block '{label}' has export enabled but no export_data_schema. A Parquet export needs a "
        "schema for the exported records.\"",
    ),
    **_task_style(include_extracted_text=False, stored_force={"complete_verification": False}),
)

LOGIN = block(
    "login", "LoginBlockYAML", "Log in with a credential parameter.",
    (
        url(), title(), *engine_fields(),
        _goal(description="Login instructions; blank → the built-in login prompt."),
        error_code_mapping(), max_retries(), max_steps_per_run(), parameter_keys(),
        *totp_fields(), disable_cache(), *_criteria(), *_verification(history_since="1.0.47"),
        flag("skip_saved_profile", False, "Do not start from a saved browser profile."),
    ),
    notes=(
        ENGINE_NOTE,
        "An empty navigation_goal is replaced by the service's built-in login prompt.",
    ),
    **_task_style(stored_fill_if_blank={"navigation_goal": "builtin_login_prompt"}),
)

HUMAN_INTERACTION = block(
    "human_interaction", "HumanInteractionBlockYAML",
    "Ask a person to approve or reject by e-mail.",
    (
        F("instructions", Str(), "Instructions shown to the reviewer.",
          default="Please review and approve or reject to continue the workflow.",
          templated="text"),
        F("positive_descriptor", Str(), "Label of the approve choice.", default="Approve",
          templated="text"),
        F("negative_descriptor", Str(), "Label of the reject choice.", default="Reject",
          templated="text"),
        F("timeout_seconds", Int(), "How long to wait, in seconds.", required=True, until="1.0.55"),
        F("timeout_seconds", Int(), "How long to wait, in seconds.", default=7200, since="1.0.55"),
        F("sender", Str(), "Sender address.", required=True, templated="text", until="1.0.55"),
        F("sender", Str(), "Sender address.", default="hello@skyvern.com", templated="text",
          since="1.0.55"),
        F("recipients", Array(Str()), "Reviewer addresses; [] is accepted.",
          required=True, templated="text"),
        F("subject", Str(), "E-mail subject.", required=True, templated="text", until="1.0.55"),
        F("subject", Str(), "E-mail subject.",
          default="Human interaction required for workflow run", templated="text", since="1.0.55"),
        F("body", Str(), "E-mail body.", required=True, templated="text", until="1.0.55"),
        F("body", Str(), "E-mail body.", default="Your interaction is required for a workflow run!",
          templated="text", since="1.0.55"),
        F("body_format", E.EMAIL_BODY_FORMAT, "Body format.", default="text", since="1.0.55"),
    ),
    notes=("An empty recipients list is accepted but notifies nobody.",),
    **_task_style(stored_engine="skyvern-1.0"),
)

FILE_DOWNLOAD = block(
    "file_download", "FileDownloadBlockYAML",
    "Download a file from a site (optionally to storage).",
    (
        F("download_target", E.FILE_DOWNLOAD_TARGET, "Where the file goes.", default="website",
          since="1.0.47"),
        *storage_fields(azure_folder_path=False, since="1.0.47"),
        text("path", "Destination path or prefix.", since="1.0.47"),
        text("prompt", "Which files to keep.", since="1.0.47"),
        flag("continue_on_empty", False, "Succeed even when nothing was downloaded.", since="1.0.47"),
        _goal(required=True, description="How to get to the download."),
        url(), title(), *engine_fields(), error_code_mapping(), max_retries(),
        max_steps_per_run(), parameter_keys(), download_suffix(), *totp_fields(),
        disable_cache(),
        F("download_timeout", Num(), "Download timeout in seconds.", nullable=True, default=None),
    ),
    notes=(ENGINE_NOTE,),
    **_task_style(stored_force={"complete_on_download": True, "complete_verification": True,
                                "include_action_history_in_verification": True}),
)

GOTO_URL = block(
    "goto_url", "UrlBlockYAML", "Open a URL.",
    (url(required=True, description="The page to open (not URL-validated at save time)."),),
    **_task_style(stored_engine="skyvern-1.0", stored_force={"complete_verification": False}),
)

#: in the service's tag order
TASK_STYLE_MODELS: tuple[ObjectModel, ...] = (
    TASK, VALIDATION, ACTION, NAVIGATION, EXTRACTION, LOGIN, HUMAN_INTERACTION, FILE_DOWNLOAD,
    GOTO_URL,
)
