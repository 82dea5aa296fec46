"""Response objects the service returns (reference §9.8, §9.9).

Only their outer shape is declared here: the stored definition inside a workflow reply is
the run-time form, which the mock server renders and which clients read loosely. These
declarations feed ``schemas/workflow.schema.json`` and ``schemas/script-summary.schema.json``.
"""

from __future__ import annotations

from .types import AnyJSON, Array, Bool, F, FreeObject, Int, ObjectModel, Ref, Str, StrMap, Union

_dt = "ISO 8601 date-time; the service sends no zone (e.g. 2026-11-22T01:38:46.468621)."


def _s(name: str, description: str = "", required: bool = False) -> F:
    return F(name, Str(), description, required=required, nullable=not required)


def _b(name: str, description: str = "") -> F:
    return F(name, Bool(), description)


STORED_DEFINITION = ObjectModel(
    name="StoredDefinition",
    title="Stored workflow definition",
    description="The run-time form of a definition: output parameters per block, ids, timestamps.",
    fields=(
        F("version", Int(), "Inferred or explicit definition version."),
        F("parameters", Array(FreeObject()), "Stored parameters: outputs first, then declared ones.", required=True),
        F("blocks", Array(FreeObject()), "Stored blocks, each with its output_parameter.", required=True),
        _s("finally_block_label"),
        F("error_code_mapping", StrMap(), nullable=True),
        F("retry_policy", FreeObject(), nullable=True),
        _s("workflow_system_prompt"),
        F("completion_contract", FreeObject(), nullable=True),
        F("browser_settings", FreeObject(), "Present only when the version has settings.", nullable=True),
    ),
)

WORKFLOW_RESPONSE = ObjectModel(
    name="WorkflowResponse",
    title="Workflow",
    description="One stored version of a workflow, as create, update, get and list return it.",
    fields=(
        _s("workflow_id", "Id of this version (w_...).", required=True),
        _s("organization_id", "Owning organization (o_...).", required=True),
        _s("title", required=True),
        _s("workflow_permanent_id", "Id shared by all versions (wpid_...).", required=True),
        F("version", Int(), "Version number, 1 for the first.", required=True),
        F("is_saved_task", Bool(), required=True),
        _b("is_template"),
        _s("description"),
        F("workflow_definition", Ref("StoredDefinition"), required=True),
        F("proxy_location", Union((Str(), FreeObject(), None)), nullable=True),
        _s("webhook_callback_url"),
        _s("totp_verification_url"),
        _s("totp_identifier"),
        _b("persist_browser_session"),
        _b("reuse_browser_session"),
        _b("mask_secrets"),
        _b("pin_saved_session_ip"),
        _s("browser_profile_id"),
        _s("browser_profile_key"),
        F("model", FreeObject(), nullable=True),
        _s("status"),
        F("max_screenshot_scrolls", Int(), nullable=True),
        F("max_elapsed_time_minutes", Int(), nullable=True),
        F("extra_http_headers", StrMap(), nullable=True),
        F("cdp_connect_headers", StrMap(), "Values are masked as ***.", nullable=True),
        _s("run_with"),
        _s("browser_type"),
        _b("ai_fallback"),
        _s("cache_key"),
        _b("adaptive_caching"),
        _b("enable_self_healing"),
        F("code_version", Int(), nullable=True),
        _b("generate_script_on_terminal"),
        F("run_sequentially", Bool(), nullable=True),
        _s("sequential_key"),
        _s("folder_id"),
        _s("import_error"),
        _s("created_by"),
        _s("edited_by"),
        _b("copilot_authored"),
        _s("effective_default_engine", "Get-one replies only."),
        _s("original_created_by", "List replies only."),
        _s("original_created_at", "List replies only. " + _dt),
        _s("created_at", _dt, required=True),
        _s("modified_at", _dt, required=True),
        _s("deleted_at", _dt),
        _s("agent_id", "Equals workflow_permanent_id."),
    ),
)

FILE_TREE_NODE = ObjectModel(
    name="FileTreeNode",
    title="File tree node",
    description="A file or directory of a script; every node has all six keys.",
    fields=(
        _s("type", '"file" or "directory".', required=True),
        F("size", Int(), "Decoded size in bytes.", nullable=True),
        _s("mime_type"),
        _s("content_hash", '"sha256:<hex>" of the decoded bytes.'),
        _s("created_at", _dt),
        F("children", AnyJSON(), "An object of nodes for a directory, null for a file.", nullable=True),
    ),
)

SCRIPT_SUMMARY = ObjectModel(
    name="ScriptSummary",
    title="Script summary",
    description="The reply of create script.",
    fields=(
        _s("script_id", "s_...", required=True),
        F("version", Int(), "Always 1 on create.", required=True),
        _s("run_id"),
        F("file_count", Int(), required=True),
        F("file_tree", FreeObject(), "Object keyed by path segment; values are FileTreeNode objects.", required=True),
        _s("created_at", _dt, required=True),
    ),
)

RESPONSE_OBJECTS = {o.name: o for o in (STORED_DEFINITION, WORKFLOW_RESPONSE, FILE_TREE_NODE, SCRIPT_SUMMARY)}
