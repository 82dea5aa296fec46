"""Control-flow, code, LLM, HTTP and trigger block types (§5.6.2-6, 17, 21, 24-26, 30).

File, e-mail and spreadsheet types are in ``blocks_io``; task-style types in ``blocks_task``.
"""

from __future__ import annotations

from . import enums as E
from .blocks import (
    block, data_schema, disable_cache, error_code_mapping, json_schema, llm_key, parameter_keys,
    totp_fields, url,
)
from .types import (
    Array, Blocks, Bool, F, Field, FreeObject, Int, ObjectModel, Ref, Str, StrMap, flag, opt_str,
    replace, text,
)


def _since(f: Field, release: str) -> Field:
    return replace(f, since=release)

FOR_LOOP = block(
    "for_loop", "ForLoopBlockYAML", "Iterate child blocks over a list.",
    (
        F("loop_blocks", Blocks(loop=True), "Child blocks (not discriminated by block_type).",
          required=True),
        F("loop_over_parameter_key", Str(),
          "Parameter or <label>_output to iterate over; must be known when non-empty.",
          default="", reference="parameter"),
        text("loop_variable_reference",
             "Template or key of the list; needed when loop_over_parameter_key is empty."),
        flag("complete_if_empty", False, "Succeed when the list is empty."),
        data_schema(FreeObject(), Str()),
    ),
    notes=(
        "Needs a source: a known loop_over_parameter_key or a non-empty loop_variable_reference: "
        "422 \"For loop block '{label}' requires either loop_over_parameter_key or "
        "loop_variable_reference\".",
        "loop_blocks items may omit block_type; the service then guesses the type.",
    ),
    loop=True,
    stored_replaces={"loop_over_parameter_key": "loop_over"},
)

WHILE_LOOP = block(
    "while_loop", "WhileLoopBlockYAML", "Repeat child blocks while a condition holds.",
    (
        F("loop_blocks", Blocks(loop=True), "Child blocks (not discriminated by block_type).",
          required=True),
        F("condition", Ref("BranchCriteria"), "Condition checked before each iteration.",
          required=True),
    ),
    notes=("loop_blocks items may omit block_type; the service then guesses the type.",),
    loop=True,
)

CODE_FORBIDDEN_KEYS: dict[str, str] = {
    "error_code": "Code blocks do not accept 'error_code'; use 'error_code_mapping'",
    "parameters": "Code blocks do not accept a 'parameters' field; use 'parameter_keys' (a list "
                  "of workflow parameter names) to inject parameters into the code block.",
}

#: the code block's error_code_mapping limits (§5.6.5), checked entry by entry
CODE_ERROR_CODE_MAPPING_LIMITS: dict[str, int] = {
    "max_entries": 64, "max_key_chars": 128, "max_value_chars": 2000, "max_total_bytes": 32768,
}

CODE = block(
    "code", "CodeBlockYAML", "Run Python.",
    (
        F("code", Str(), "Python source; Jinja is rendered first and checked at save time.",
          required=True, templated="text"),
        _since(error_code_mapping(), "1.0.55"), parameter_keys(),
        opt_str("prompt", "Plain-language goal shown in the editor.", since="1.0.42"),
        F("steps", Array(Ref("CodeBlockStep")), "Ignored: rebuilt from code on save.",
          nullable=True, default=None, since="1.0.42"),
        _since(data_schema(), "1.0.55"),
        F("user_owned_goal", Bool(), "Editor metadata.", nullable=True, default=None,
          since="1.0.55"),
        F("goal_needs_regeneration", Bool(), "Editor metadata.", nullable=True, default=None,
          since="1.0.55"),
        F("code_edited_by_hand", Bool(), "Editor metadata.", nullable=True, default=None,
          since="1.0.56"),
    ),
    notes=(
        "A key error_code is refused: \"" + CODE_FORBIDDEN_KEYS["error_code"] + "\".",
        "A key parameters is refused: \"" + CODE_FORBIDDEN_KEYS["parameters"] + "\".",
        "error_code_mapping: at most 64 entries; keys trimmed, non-empty, at most 128 characters, "
        "no Unicode category-C characters; values trimmed, non-empty, at most 2000 characters, "
        "no category-C characters; keys and values total at most 32768 UTF-8 bytes.",
        "The code is parsed as Jinja at save time (Jinja inside # comments is masked); Python "
        "syntax is not checked at save time.",
        "steps are ignored and rebuilt from the code; malformed steps are discarded silently.",
    ),
    forbidden_keys=CODE_FORBIDDEN_KEYS,
    error_code_mapping_limits=CODE_ERROR_CODE_MAPPING_LIMITS,
    stored_rebuilt=("steps",),
)

TEXT_PROMPT = block(
    "text_prompt", "TextPromptBlockYAML", "LLM text call.",
    (
        llm_key(),
        F("prompt", Str(), "The prompt sent to the LLM.", required=True, templated="text"),
        parameter_keys(), json_schema(),
    ),
    # how the service labels this type in loop_blocks errors: (label, since, until)
    loop_labels=(("function-after[normalize_llm_selection(), TextPromptBlockYAML]", None, None),),
)

WAIT = block(
    "wait", "WaitBlockYAML", "Pause.",
    (F("wait_sec", Int(), "Seconds to wait; the service requires 1..1800.", default=0),),
    notes=(
        "wait_sec must be 1..1800 (the maximum is a server setting); a missing wait_sec is 0: 422 "
        "\"Invalid wait time {n} for wait block '{label}'. It must be a whole number of seconds "
        "between 1 and {max}.\"",
    ),
    service_range={"wait_sec": (1, 1800)},
    stored_parameters=True,
)

TERMINATE_ERROR_CODE_PATTERN = r"[A-Za-z0-9_.:-]+"

TERMINATE = block(
    "terminate", "TerminateBlockYAML", "End the run with a reason.", since="1.0.55",
    fields=(
        F("reason", Str(min_length=1, strip=True), "Why the run ends; stripped, then non-empty.",
          required=True, templated="text"),
        text("error_code",
             "Error code; trimmed; a literal must match [A-Za-z0-9_.:-]+ (max 128)."),
    ),
    notes=(
        "error_code is trimmed. With {{, {% or {# it is a template and only Unicode category-C "
        "characters are refused; otherwise it must be non-empty, at most 128 characters, without "
        "category-C characters, and match [A-Za-z0-9_.:-]+.",
        "Messages: \"error code keys must be trimmed, non-empty strings of at most 128 "
        "characters\", \"error code keys must not contain Unicode category-C characters\", "
        "\"literal error codes may contain only ASCII letters, digits, underscores, periods, "
        "colons, and hyphens\".",
    ),
    error_code_pattern=TERMINATE_ERROR_CODE_PATTERN,
    error_code_max_chars=128,
)

TASK_V2 = block(
    "task_v2", "TaskV2BlockYAML", "Prompt-driven multi-step agent.",
    (
        F("prompt", Str(), "What the agent should do.", required=True, templated="text"),
        url(), *totp_fields(),
        F("max_iterations", Int(), "Iteration limit (server setting).", default=10,
          until="1.0.42"),
        F("max_iterations", Int(), "Iteration limit (server setting, documented 50).",
          default=50, since="1.0.42"),
        F("max_steps", Int(), "Step limit (server setting, documented 25).", default=25),
        disable_cache(),
    ),
    server_defaults={"max_iterations": 50, "max_steps": 25},
)

HTTP_REQUEST = block(
    "http_request", "HttpRequestBlockYAML", "HTTP call.",
    (
        F("method", Str(), "HTTP method (free string, not checked).", default="GET",
          templated="text"),
        url(description="Request URL."),
        F("headers", StrMap(), "Request headers.", nullable=True, default=None,
          templated="values"),
        F("body", FreeObject(), "JSON body (object only).", nullable=True, default=None,
          templated="leaves", yaml11_sensitive=True),
        F("files", StrMap(), "Multipart field name → file path or URL.", nullable=True,
          default=None, templated="values"),
        F("timeout", Int(), "Timeout in seconds.", default=30),
        flag("follow_redirects", True, "Follow redirects."),
        text("download_filename", "File name of a saved response."),
        flag("save_response_as_file", False, "Save the response body as a file."),
        F("secret_response_paths", Array(Str()), "Response paths to treat as secrets.",
          nullable=True, default=None, since="1.0.45"),
        parameter_keys(),
    ),
    notes=(
        "save_response_as_file: true with a non-empty secret_response_paths is refused: "
        "\"secret_response_paths cannot be combined with save_response_as_file\".",
        "Secret and credential values can be expanded in http_request templates.",
    ),
    loop_labels=(("function-after[validate_secret_response_paths_file_conflict(), HttpRequestBlockYAML]",
                  "1.0.45", None),),
)

WEB_SEARCH = block(
    "web_search", "WebSearchBlockYAML", "Web search.", since="1.0.55",
    fields=(
        F("query", Str(min_length=1), "Search query.", required=True, templated="text"),
        F("provider", E.WEB_SEARCH_PROVIDER, "Search provider.", default="auto"),
        F("num_results", Int(ge=1, le=100, strict=True), "Number of results (strict integer).",
          default=10),
        F("no_results_error_code", Str(min_length=1, max_length=100),
          "Deprecated: error code when nothing is found.", nullable=True, default=None,
          deprecated=True),
        F("no_match_error_code", Str(min_length=1, max_length=100),
          "Deprecated: error code when nothing matches the prompt.", nullable=True, default=None,
          deprecated=True),
        error_code_mapping(),
        text("prompt", "Filters or extracts from the results."),
        json_schema(templated="leaves"),
        parameter_keys(),
    ),
    notes=(
        "no_results_error_code / no_match_error_code are trimmed; blank gives \"Outcome error "
        "codes must not be blank.\"",
        "no_match_error_code needs a non-blank prompt: \"No Match Error Code requires a Prompt.\"",
        "A json_schema without {{ or {% must be a valid JSON Schema (Draft 2020-12): \"The Data "
        "Schema is not a valid JSON Schema: {reason}.\"",
    ),
    loop_labels=(("function-after[validate_no_match_error_code_prompt(), WebSearchBlockYAML]", None, None),),
)

CONDITIONAL = block(
    "conditional", "ConditionalBlockYAML", "Branch to other blocks.",
    (
        F("branch_conditions", Array(Ref("BranchCondition")),
          "Branches, evaluated in order; targets are sibling labels.", default=[]),
    ),
    notes=(
        "At least one branch: \"Conditional blocks require at least one branch.\"",
        "At most one default branch: \"Only one default branch is permitted per conditional "
        "block.\" Zero defaults are allowed.",
        "A conditional makes the definition v2.",
    ),
    loop_labels=(("function-after[validate_branches(), ConditionalBlockYAML]", None, None),),
    stored_branch_ids="uuid4",
)

WORKFLOW_TRIGGER = block(
    "workflow_trigger", "WorkflowTriggerBlockYAML", "Start another workflow.",
    (
        F("workflow_permanent_id", Str(), "Target workflow (not checked at save time).",
          required=True, templated="text"),
        F("payload", FreeObject(), "Parameters of the triggered run.", nullable=True,
          default=None, templated="leaves", yaml11_sensitive=True),
        flag("wait_for_completion", True, "Wait for the triggered run to finish."),
        text("browser_session_id", "Browser session to use."),
        flag("use_parent_browser_session", False, "Share this run's browser session."),
        parameter_keys(),
    ),
    notes=(
        "Every string leaf of payload is parsed as Jinja at save time, for top-level blocks "
        "only: \"Invalid Jinja2 in workflow_trigger block '{label}': …\".",
    ),
)

#: in the service's tag order
OTHER_MODELS: tuple[ObjectModel, ...] = (
    FOR_LOOP, WHILE_LOOP, CODE, TEXT_PROMPT, WAIT, TERMINATE, TASK_V2, HTTP_REQUEST, WEB_SEARCH,
    CONDITIONAL, WORKFLOW_TRIGGER,
)
