"""Objects outside the block and parameter families (service reference §2, §3, §5.4, §5.6.5, §9.8).

The envelope, the top-level request, the definition and the small nested objects they use.
``class_name`` is set only where the reference names the service's class (``GeoTarget``);
the other objects are known by ``name`` only.
"""

from __future__ import annotations

from . import enums as E
from .types import (
    Array, Blocks, Bool, F, FreeObject, Int, ObjectModel, Parameters, Ref, Str, StrMap,
    Union, flag, opt_str, text,
)

# --------------------------------------------------------------------------- §2.3 GeoTarget

GEO_TARGET = ObjectModel(
    name="GeoTarget",
    title="Geo target",
    description="A proxy location given as country / subdivision / city.",
    class_name="GeoTarget",
    fields=(
        F("country", Str(min_length=2, max_length=2),
          "ISO 3166-1 alpha-2 country code; upper-cased and checked against the supported list.",
          required=True),
        F("subdivision", Str(max_length=10),
          "ISO 3166-2 subdivision without the country; a country prefix is stripped.",
          nullable=True, default=None),
        F("city", Str(max_length=100), "City name.", nullable=True, default=None),
        flag("isISP", False, "Use an ISP proxy.", since="1.0.55"),
    ),
    notes=(
        "An object that fails GeoTarget validation is still accepted for proxy_location and "
        "stored as null.",
        "A valid one is stored normalised with all four keys.",
    ),
)

# --------------------------------------------------------------------------- §2.2 request

REQUEST = ObjectModel(
    name="WorkflowRequest",
    title="Workflow create/update request",
    description="The top-level request object: workflow settings plus the definition.",
    fields=(
        F("title", Str(), "Workflow title; an empty string is accepted.", required=True),
        opt_str("recording_id", "Browser recording to attach (must belong to this workflow).",
                since="1.0.55"),
        opt_str("description", "Free description."),
        F("proxy_location",
          Union((E.PROXY_LOCATION, Ref("GeoTarget"), FreeObject())),
          "ProxyLocation value or GeoTarget object; an invalid object is stored as null.",
          nullable=True, default=None),
        opt_str("webhook_callback_url", "URL called when a run ends; checked as a URL (C6)."),
        opt_str("totp_verification_url", "URL polled for TOTP codes (not checked at save)."),
        opt_str("totp_identifier", "Identifier used to look up pushed TOTP codes."),
        flag("persist_browser_session", False, "Keep the browser session after the run."),
        flag("reuse_browser_session", False, "Reuse a persisted browser session.", since="1.0.55"),
        F("mask_secrets", Bool(), "Mask secrets in outputs; null is stored as false on create.",
          nullable=True, default=None, since="1.0.48"),
        flag("pin_saved_session_ip", False, "Pin the IP of a saved session.", since="1.0.45"),
        opt_str("browser_profile_id", "Browser profile to start from."),
        text("browser_profile_key",
             "Browser profile key; trimmed, blank becomes null; parsed as a Jinja template.",
             since="1.0.44"),
        F("model", FreeObject(), "Workflow-wide LLM choice, e.g. {\"model_name\": …}.",
          nullable=True, default=None, yaml11_sensitive=True),
        F("workflow_definition", Ref("WorkflowDefinition"), "Parameters and blocks.",
          required=True),
        flag("is_saved_task", False, "Mark the workflow as a saved task."),
        F("max_screenshot_scrolls", Int(),
          "Screenshot scroll limit; clamped into 0..1000, never rejected.",
          nullable=True, default=None),
        F("max_elapsed_time_minutes", Int(ge=1, le=240),
          "Run time limit in minutes (1..240); a boolean is rejected.",
          nullable=True, default=None, until="1.0.42"),
        F("max_elapsed_time_minutes", Int(ge=1, le=480),
          "Run time limit in minutes (1..480); a boolean is rejected.",
          nullable=True, default=None, since="1.0.42"),
        F("extra_http_headers", StrMap(), "Extra HTTP headers for the browser (literal values).",
          nullable=True, default=None),
        F("cdp_connect_headers", StrMap(),
          "Headers for the CDP connection; masked as \"***\" in responses.",
          nullable=True, default=None),
        F("status", E.WORKFLOW_STATUS, "Workflow status.", default="published"),
        F("run_with", Str(),
          "agent or code; normalised (null/ai → agent, code_v2 → code, other → agent).",
          nullable=True, default="agent"),
        opt_str("browser_type", "msedge, chrome or stealth-chromium (custom rule).", since="1.0.55"),
        flag("ai_fallback", True, "Fall back to the AI agent when cached code fails."),
        F("cache_key", Str(), "Cache key for generated code.", nullable=True, default="default"),
        flag("adaptive_caching", False, "Adaptive code caching."),
        F("enable_self_healing", Bool(), "No run-time effect; stored as false on create.",
          nullable=True, default=None, since="1.0.45"),
        F("code_version", Int(ge=1, le=2), "Code generation version (1..2); 2 when null on create.",
          nullable=True, default=None),
        flag("generate_script_on_terminal", False, "Generate a script when the run ends."),
        flag("run_sequentially", False, "Serialise runs of this workflow."),
        opt_str("sequential_key", "Key that groups sequential runs."),
        opt_str("folder_id", "Folder of the workflow (create only; a query parameter overrides)."),
    ),
    notes=(
        "browser_type must be msedge, chrome or stealth-chromium: \"Invalid browser_type '{v}'; "
        "must be one of: msedge, chrome, stealth-chromium\" (422).",
        "max_elapsed_time_minutes: a boolean is rejected with \"max_elapsed_time_minutes must be "
        "an integer, not a boolean\".",
        "A proxy_location string that is not a ProxyLocation gives three errors, one per union "
        "branch.",
        "Title \"New Workflow\" or \"New Agent\" with at least one block may be replaced by a "
        "generated title.",
    ),
    extra={
        # what an update does with an omitted field (§2.2 "update, if omitted", §9.4)
        "on_update_omitted": {
            "description": "default", "proxy_location": "kept", "webhook_callback_url": "kept",
            "totp_verification_url": "kept", "totp_identifier": "kept",
            "persist_browser_session": "default", "reuse_browser_session": "default",
            "mask_secrets": "kept_if_null", "pin_saved_session_ip": "kept_if_absent",
            "browser_profile_id": "default", "browser_profile_key": "default",
            "model": "default", "is_saved_task": "default", "max_screenshot_scrolls": "default",
            "max_elapsed_time_minutes": "kept_if_absent", "extra_http_headers": "kept",
            "cdp_connect_headers": "kept", "status": "default", "run_with": "default",
            "browser_type": "kept_if_absent", "ai_fallback": "default", "cache_key": "default",
            "adaptive_caching": "default", "enable_self_healing": "kept_if_null",
            "code_version": "kept_if_null", "generate_script_on_terminal": "default",
            "run_sequentially": "default", "sequential_key": "default", "folder_id": "kept_always",
        },
        # values stored on create when the request holds null
        "create_null_fill": {"mask_secrets": False, "enable_self_healing": False,
                             "code_version": 2},
        "clamp": {"max_screenshot_scrolls": (0, 1000)},
        # the location labels pydantic gives each proxy_location union branch
        "union_locs": {"proxy_location": ("str-enum[ProxyLocation]", "GeoTarget",
                                          "dict[any,any]")},
        "masked_in_responses": ("cdp_connect_headers",),
        "new_title_placeholders": ("New Workflow", "New Agent"),
    },
)

# --------------------------------------------------------------------------- §2.1 envelope

ENVELOPE = ObjectModel(
    name="WorkflowRequestEnvelope",
    title="Create/update body",
    description="Body of create and update: the request as JSON or as a YAML document.",
    fields=(
        F("json_definition", Ref("WorkflowRequest"),
          "The request object; fully validated during body parsing even when YAML is sent.",
          nullable=True, default=None),
        opt_str("yaml_definition", "A YAML document holding a whole request object; wins when "
                "non-empty."),
    ),
    notes=(
        "A non-empty yaml_definition wins; otherwise a non-null json_definition is used; "
        "otherwise 422 \"Invalid workflow definition. Workflow should be provided in either yaml "
        "or json format.\"",
        "An empty yaml_definition string counts as absent.",
    ),
)

# --------------------------------------------------------------------------- §3 definition

RETRY_RULE = ObjectModel(
    name="RetryRule",
    title="Retry rule",
    description="A run outcome that triggers a retry.",
    fields=(
        F("status", E.RETRY_STATUS, "Run status that matches; canceled runs are never retried.",
          required=True),
        F("error_codes", Array(Str(min_length=1)),
          "Error codes, any of which matches; duplicates are removed.",
          nullable=True, default=None),
    ),
)

RETRY_POLICY = ObjectModel(
    name="RetryPolicy",
    title="Retry policy",
    description="Automatic retries of a whole run.",
    fields=(
        F("max_retries", Int(ge=1, le=5, strict=True), "Retries after the first attempt.",
          default=1),
        F("delay_seconds", Int(ge=0, le=3600, strict=True), "Delay between attempts.", default=0),
        F("webhook_on_retry", E.WEBHOOK_ON_RETRY, "Which attempts fire the webhook.",
          default="final_only"),
        F("retry_on", Array(Ref("RetryRule"), min_items=1), "Rules that trigger a retry.",
          required=True),
    ),
    notes=("retry_on must contain each status at most once.",),
)

BROWSER_SETTINGS = ObjectModel(
    name="BrowserSettings",
    title="Browser settings",
    description="Browser options of the workflow.",
    fields=(
        opt_str("timezone_id", "IANA time zone name such as America/New_York."),
    ),
    notes=(
        "timezone_id must be an IANA zone name; UTC offsets are refused: \"timezone_id '{v}' is "
        "not an IANA timezone name. Use a name such as 'America/New_York' or 'Africa/Kampala'; "
        "UTC offsets are not accepted.\"",
    ),
)

DEFINITION = ObjectModel(
    name="WorkflowDefinition",
    title="Workflow definition",
    description="The parameters and blocks of a workflow, with workflow-level options.",
    fields=(
        F("version", Int(), "Definition version, 1 unless given; >= 2 means v2.", default=1,
          until="1.0.44"),
        F("version", Int(), "Inferred when null (1, or 2 with v2 constructs); >= 2 means v2.",
          nullable=True, default=None, since="1.0.44"),
        F("parameters", Parameters(), "Workflow parameters (may be empty).", required=True),
        F("blocks", Blocks(), "Top-level blocks (may be empty).", required=True),
        opt_str("finally_block_label",
                "Label of a top-level block that always runs last; must be terminal.",
                reference="label"),
        F("error_code_mapping", StrMap(), "Workflow-level error code → description.",
          nullable=True, default=None),
        F("retry_policy", Ref("RetryPolicy"), "Automatic retries.", nullable=True, default=None,
          since="1.0.55"),
        text("workflow_system_prompt", "System prompt added to every LLM call of the run."),
        F("completion_contract", FreeObject(), "Managed by the service's assistant.",
          nullable=True, default=None, yaml11_sensitive=True, since="1.0.48"),
        F("browser_settings", Ref("BrowserSettings"), "Browser options.",
          nullable=True, default=None, since="1.0.56"),
    ),
    notes=(
        "Top-level block labels must be unique.",
        "finally_block_label must name a top-level block.",
        "version < 2 with a top-level conditional or next_block_label is refused.",
    ),
    extra={
        "stored_keys": ("version", "parameters", "blocks", "finally_block_label",
                        "error_code_mapping", "retry_policy", "workflow_system_prompt",
                        "completion_contract", "browser_settings"),
        # present in the stored form only when the version has settings
        "stored_only_when_set": ("browser_settings",),
    },
)

# --------------------------------------------------------------------------- §5.4 branches

BRANCH_CRITERIA = ObjectModel(
    name="BranchCriteria",
    title="Branch criteria",
    description="The test of a conditional branch or a while loop.",
    fields=(
        F("criteria_type", E.CRITERIA_TYPE,
          "Nominal kind; at run time a lone {{ … }} is a template, anything else a prompt.",
          default="jinja2_template"),
        F("expression", Str(), "Jinja expression or natural-language condition.",
          required=True, templated="text"),
        opt_str("description", "Free description."),
    ),
)

BRANCH_CONDITION = ObjectModel(
    name="BranchCondition",
    title="Branch condition",
    description="One branch of a conditional block.",
    fields=(
        F("criteria", Ref("BranchCriteria"), "The test; null only for the default branch.",
          nullable=True, default=None),
        opt_str("next_block_label", "Sibling label to continue with; null ends the branch.",
                reference="label"),
        opt_str("description", "Free description."),
        flag("is_default", False, "Taken when no other branch matches."),
    ),
    notes=(
        "A branch without criteria must be marked as default: \"Branches without criteria must "
        "be marked as default.\"",
        "A default branch may not define criteria: \"Default branches may not define criteria.\"",
    ),
    extra={"stored_id": "uuid4"},
)

# --------------------------------------------------------------------------- §5.6.5 code step

CODE_BLOCK_STEP = ObjectModel(
    name="CodeBlockStep",
    title="Code block step",
    description="Editor metadata of a code block; ignored and rebuilt from the code on save.",
    fields=(
        opt_str("title", "Title of the step.", until="1.0.55"),
        opt_str("description", "What the step does."),
        F("action_type", Str(), "Free string; ignored.", default="null_action"),
        F("line_start", Int(), "First line of the step.", nullable=True, default=None),
        F("line_end", Int(), "Last line of the step.", nullable=True, default=None),
    ),
)

# --------------------------------------------------------------------------- §9.8 scripts

SCRIPT_FILE = ObjectModel(
    name="ScriptFile",
    title="Script file",
    description="One file of a script.",
    fields=(
        F("path", Str(), "Relative POSIX path; percent-decoded before checks and storage.",
          required=True),
        F("content", Str(), "File content, base64 or plain text.", required=True),
        F("encoding", E.SCRIPT_FILE_ENCODING, "Encoding of content.", default="base64"),
        opt_str("mime_type", "MIME type, stored as sent."),
    ),
    notes=(
        "The decoded path must be relative, non-empty, without NUL, backslash, drive letter or "
        "empty/./.. segments.",
        "Blocked extensions, duplicate paths, bad base64, files over 10 MiB and unsafe Python "
        "give 400.",
    ),
    extra={
        "blocked_extensions": (".dylib", ".egg", ".pickle", ".pkl", ".pth", ".pyc", ".pyd",
                               ".pyo", ".so", ".whl", ".zip"),
        "max_bytes": 10485760,
        "max_decode_rounds": 16,
    },
)

CREATE_SCRIPT_REQUEST = ObjectModel(
    name="CreateScriptRequest",
    title="Create-script body",
    description="Body of POST /v1/scripts; {} is valid.",
    fields=(
        opt_str("workflow_id", "Accepted, not used and not checked."),
        opt_str("run_id", "An existing run of the organization."),
        F("files", Array(Ref("ScriptFile")), "Script files.", nullable=True, default=None),
    ),
)

#: all objects of this module, by name
TOPLEVEL_OBJECTS: tuple[ObjectModel, ...] = (
    ENVELOPE, REQUEST, GEO_TARGET, DEFINITION, RETRY_POLICY, RETRY_RULE, BROWSER_SETTINGS,
    BRANCH_CRITERIA, BRANCH_CONDITION, CODE_BLOCK_STEP, SCRIPT_FILE, CREATE_SCRIPT_REQUEST,
)

__all__ = [
    "BRANCH_CONDITION", "BRANCH_CRITERIA", "BROWSER_SETTINGS", "CODE_BLOCK_STEP",
    "CREATE_SCRIPT_REQUEST", "DEFINITION", "ENVELOPE", "GEO_TARGET", "REQUEST", "RETRY_POLICY",
    "RETRY_RULE", "SCRIPT_FILE", "TOPLEVEL_OBJECTS",
]
