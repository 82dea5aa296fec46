"""The engine's run-time facts (release 1.0.56), as pure functions and constants.

Each fact names where the engine keeps it (package-relative to ``skyvern``) and was observed
on the real engine run offline (``service-runs.md`` §4). Rules and the simulator read these;
neither restates them.
"""

from __future__ import annotations

import re

from ..core.patterns import lazy

#: ``DEFAULT_MAX_LOOP_ITERATIONS`` (models/block.py): a loop stops with a failure past this.
MAX_LOOP_ITERATIONS = 1000
#: ``DEFAULT_MAX_STEPS_PER_ITERATION``: block executions allowed in one loop iteration.
MAX_STEPS_PER_ITERATION = 50

#: ``terminate_block.py``: an error code must match this and be at most 128 characters after
#: rendering, or it is dropped (and a note appended to the reason).
ERROR_CODE_PATTERN = lazy(r"[A-Za-z0-9_.:-]+")
ERROR_CODE_MAX_LENGTH = 128

#: ``_evaluate_truthy_string``: these (case-insensitive, stripped) are false; so is "".
FALSY_STRINGS = frozenset({"", "false", "0", "no", "n", "off", "null", "none"})

#: ``_is_pure_jinja_expression``: exactly one ``{{ … }}`` with nothing around it.
_PURE_JINJA = lazy(r"^\s*\{\{(?:(?!\{\{|\}\}).)*\}\}\s*$", re.DOTALL)

#: Runtime variables the engine puts in every block's template namespace
#: (``_build_block_parameter_template_data``).
RUNTIME_VARIABLES = frozenset({
    "workflow_title", "workflow_id", "workflow_permanent_id", "workflow_run_id",
    "current_date", "browser_session_id", "workflow_run_outputs", "workflow_run_summary",
})
#: Set on a loop and its children for each iteration (and lifted to the top level).
LOOP_VARIABLES = frozenset({"current_index", "current_value", "current_item"})

#: Code blocks: what they may do and the names they get is ``code_policy`` (one table).


def is_pure_jinja_expression(text: str) -> bool:
    """True when a branch expression stays ``jinja2_template``; anything else becomes ``prompt``.

    The engine decides a conditional branch's criteria type by its text, not by what was
    declared (``BranchCondition.validate_condition``), in both directions, at save time.
    """
    return bool(_PURE_JINJA.match(text))


def is_truthy_string(rendered: str) -> bool:
    """How a rendered Jinja branch criterion (or while condition) decides.

    ``_evaluate_truthy_string``: the falsy words and ``0`` are false, any nonzero number and
    any other non-empty text is true.
    """
    text = rendered.strip().lower()
    if text in FALSY_STRINGS:
        return False
    try:
        return float(text) != 0
    except ValueError:
        return True


def usable_error_code(code: str) -> bool:
    """Whether a rendered terminate ``error_code`` survives (else it is dropped)."""
    return len(code) <= ERROR_CODE_MAX_LENGTH and bool(ERROR_CODE_PATTERN.fullmatch(code))


# --------------------------------------------------------------------------- run-time rules
# Facts the run-time rules (WF7xx) rely on, each as the engine keeps it (1.0.56).

#: ``WhileLoopBlock`` / ``ForLoopBlock``: what reaching ``MAX_LOOP_ITERATIONS`` fails with.
MAX_ITERATIONS_REASON = f"Reached max_loop_iterations limit of {MAX_LOOP_ITERATIONS}"

#: A loop's ``<label>_output`` holds ``OutputParameter`` objects (``[[{"loop_value",
#: "output_parameter", "output_value"}]]``), which ``tojson`` cannot serialise.
LOOP_OUTPUT_TOJSON_ERROR = "Object of type OutputParameter is not JSON serializable"
#: the keys of one child's entry in a loop output; only ``output_parameter`` is not JSON
LOOP_OUTPUT_ENTRY_KEYS = ("loop_value", "output_parameter", "output_value")

#: ``models/_jinja.py`` ``render_templates_in_json_value``: ``{{ x | json }}`` must be the whole
#: string, else the block fails with this.
JSON_FILTER_WITH_TEXT_ERROR = ("The '| json' filter can only be used for complete value replacement. "
                               "It cannot be combined with other text")

#: Criteria: a conditional branch's type is decided by its text at save time
#: (``is_pure_jinja_expression``); a ``while_loop`` condition keeps its declared type
#: (``workflow_definition_converter.py``), so brace-less Jinja text renders as itself.
DEFAULT_CRITERIA_TYPE = "jinja2_template"

#: ``CodeBlock``: an unknown name in the code fails the block with this exception type.
CODE_UNKNOWN_NAME_ERROR = "NameError"
#: ``CodeBlock`` failure reason for an ``ErrorCode`` absent from the block's mapping.
ERROR_CODE_UNDECLARED_REASON = ("Failed to execute code block. Reason: ErrorCode is not declared in the "
                                "effective error_code_mapping")


def effective_error_code_mapping(block_data: dict, workflow_mapping: object = None) -> dict:
    """The codes a code block may raise: the workflow-level ``error_code_mapping`` with the
    block's own entries over it. Observed on the real engine: a code declared only at the
    workflow level is reported as the declared error (``CodeBlock._extract_declared_error``)."""
    out = dict(workflow_mapping) if isinstance(workflow_mapping, dict) else {}
    mapping = block_data.get("error_code_mapping")
    out.update(mapping if isinstance(mapping, dict) else {})
    return out


def error_code_raises(code: str, walked: "list | None" = None) -> tuple[list[tuple[int, int, str]], tuple[str, int] | None]:
    """The direct ``raise ErrorCode('<code>', reasoning)`` statements of a code block, as
    (line, column, code), and the first shape problem the engine refuses before running the
    code (message, line), or None. ``walked`` is the code's parsed (dedented) module as
    ``python_nodes.nodes`` lists it, when the caller has it.

    ``schemas/workflows.py`` ``_direct_code_block_error_code_raises`` runs just before
    ``exec`` (``_validate_code_block_error_code_calls``); a problem fails the block with
    ``"Failed to execute code block. Reason: SyntaxError: <message>"``. Code that does not
    parse as Python gives ([], None): WF404 reports it.
    """
    import ast

    from ..document import python_nodes

    if "ErrorCode" not in code:  # every shape below names it
        return [], None
    if walked is None:
        import textwrap

        try:
            walked = python_nodes.nodes(ast.parse(textwrap.dedent(code)))
        except (SyntaxError, ValueError):
            return [], None
    found: list[tuple[int, int, str]] = []
    accepted: set[int] = set()
    raise_lines: dict[int, int] = {}
    raises = [n for n in walked if isinstance(n, ast.Raise)]
    for r in raises:
        for line in range(r.lineno, (r.end_lineno or r.lineno) + 1):
            raise_lines[line] = raise_lines.get(line, 0) + 1
    for r in raises:
        if isinstance(r.exc, ast.Call) and isinstance(r.exc.func, ast.Name) and r.exc.func.id == "ErrorCode":
            if any(raise_lines[line] > 1 for line in range(r.lineno, (r.end_lineno or r.lineno) + 1)):
                return found, ("ErrorCode must be constructed directly in an unambiguous raise statement", r.lineno)
    for node in walked:  # walk order, each node's checks in the engine's order
        line = getattr(node, "lineno", 1)
        if _shadows_error_code(node):
            return found, ("ErrorCode cannot be shadowed", line)
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (alias.asname or alias.name) == "ErrorCode" for alias in node.names):
            return found, ("ErrorCode cannot be imported or aliased", line)
        if not isinstance(node, ast.Raise):
            continue
        if isinstance(node.exc, ast.Name) and node.exc.id == "ErrorCode":
            return found, ("ErrorCode must be raised as ErrorCode('literal', reasoning)", line)
        if not isinstance(node.exc, ast.Call):
            continue
        call = node.exc
        if isinstance(call.func, ast.Attribute) and call.func.attr == "ErrorCode":
            return found, ("ErrorCode must be constructed directly in a raise statement", line)
        if isinstance(call.func, ast.Name) and call.func.id == "ErrorCode":
            if call.keywords or len(call.args) != 2:
                return found, ("ErrorCode requires exactly two positional arguments", line)
            first = call.args[0]
            if not isinstance(first, ast.Constant) or type(first.value) is not str:
                return found, ("ErrorCode code must be a direct string literal", line)
            found.append((node.lineno, node.col_offset, first.value))
            accepted.add(id(call))
    for node in walked:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ErrorCode" \
                and id(node) not in accepted:
            return found, ("ErrorCode must be constructed directly in a raise statement", node.lineno)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == "ErrorCode":
            return found, ("ErrorCode aliases are not allowed", node.lineno)
    return found, None



def _shadows_error_code(node: object) -> bool:
    """A binding of the name ``ErrorCode`` (the engine refuses every one)."""
    import ast

    return (
        (isinstance(node, ast.Name) and node.id == "ErrorCode" and isinstance(node.ctx, ast.Store))
        or (isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "ErrorCode")
        or (isinstance(node, ast.arg) and node.arg == "ErrorCode")
        or (isinstance(node, ast.ExceptHandler) and node.name == "ErrorCode")
        or (isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name == "ErrorCode")
        or (isinstance(node, ast.MatchMapping) and node.rest == "ErrorCode")
    )

#: ``ForLoopBlock`` / ``WhileLoopBlock``: the step count is checked after each block execution
#: of an iteration, and reaching ``MAX_STEPS_PER_ITERATION`` fails it with this reason: a body
#: that runs 50 blocks in one iteration fails at its 50th (49 is the most that completes).
MAX_STEPS_REASON = f"Reached max_steps_per_iteration limit of {MAX_STEPS_PER_ITERATION}"


def iteration_fails_at_steps(executions: int) -> bool:
    """Whether an iteration that runs ``executions`` blocks hits the per-iteration limit."""
    return executions >= MAX_STEPS_PER_ITERATION


# --- Run-time messages and limits the simulator reproduces (service-runs.md §4) -------------

#: ``_resolve_block_terminal_outcome``: the run's failure reason for a block that stops it.
RUN_FAILED_BY_BLOCK = "{block_type} block failed. failure reason: {reason}"
RUN_TERMINATED_BY_BLOCK = "{block_type} block terminated. Reason: {reason}"
RUN_TIMED_OUT_BY_BLOCK = "{block_type} block timed out. Reason: {reason}"

#: ``FailedToFormatJinjaStyleParameter``: the text a template error carries.
JINJA_FORMAT_ERROR = (
    "Failed to format Jinja style parameter '{template}'. Reason: {message}. "
    "If your block labels or parameter keys contain characters like '/', '-', or '.', "
    "please rename them to use only letters, numbers, and underscores "
    "(e.g., 'State_Province' instead of 'State/Province')."
)
#: ``models/_jinja.py``: the ``json`` filter's markers around a raw JSON value.
JSON_FILTER_MARKER = "__SKYVERN_RAW_JSON__"
JSON_FILTER_MIXED = (
    "The '| json' filter can only be used for complete value replacement. "
    "It cannot be combined with other text (e.g., 'prefix-{{ val | json }}'). "
    "Remove the surrounding text or remove the '| json' filter."
)

#: Loop outcomes (``ForLoopBlock._run_loop`` / ``execute_loop_helper``).
NO_ITERABLE_VALUE = "No iterable value found for the loop block"
NO_LOOP_BLOCKS = "No defined blocks to loop"
LOOP_VALUES_FAILED = "Failed to get loop values."
MAX_ITERATIONS_REACHED = "Reached max_loop_iterations limit of {limit}"
MAX_STEPS_REACHED = "Reached max_steps_per_iteration limit of {limit}"

#: Conditional outcomes (``ConditionalBlock.execute``).
NO_BRANCH_MATCHED = "No conditional branch matched and no default branch configured"
BRANCH_EVALUATION_FAILED = "Failed to evaluate branch {index} for {label}: {error}"
PROMPT_BRANCHES_FAILED = "Failed to evaluate natural language branches: {error}"

#: Code blocks (``CodeBlock._execute``; ``CustomizedCodeException``).
CODE_FORMAT_FAILED = "Failed to format CodeBlock parameters."
CODE_FAILED = "Failed to execute code block. Reason: {exc_type}: {message}"
CODE_INSECURE = "Insecure code detected."
CODE_TIMEOUT = "Failed to execute code block. Reason: TimeoutError: code block exceeded {seconds} seconds"
CODE_TIMEOUT_SECONDS = 300
CODE_ERROR_CODE_UNDECLARED = (
    "Failed to execute code block. Reason: ErrorCode is not declared in the effective error_code_mapping"
)
#: ``_validate_code_block_error_code_calls``: a refused ErrorCode shape, as the block's reason
CODE_SYNTAX_ERROR = "Failed to execute code block. Reason: SyntaxError: {message}"
#: ``CODE_BLOCK_FAILURE_REASON_MAX_CHARS``: an exception's text is cut to this in the reason
CODE_FAILURE_REASON_MAX_CHARS = 2000

#: ``text_prompt``: attempts at a schema-valid answer, and the default schema.
TEXT_PROMPT_SCHEMA_ATTEMPTS = 2
TEXT_PROMPT_SCHEMA_MAX_ERRORS = 5
DEFAULT_TEXT_PROMPT_SCHEMA = {
    "type": "object",
    "properties": {"llm_response": {"type": "string", "description": "Your response to the prompt"}},
}
TEXT_PROMPT_SUFFIX = (
    "\n\nPlease respond to the prompt above using the following JSON definition:\n\n```json\n{schema}\n```\n\n"
)
TEXT_PROMPT_RETRY = (
    "{prompt}\n\nYour previous response failed JSON schema validation.\nValidation error: {failure}\n\n"
    "Retry the task. Return only valid JSON that exactly matches the schema. "
    "Do not include markdown, code fences, explanatory text, or extra fields."
)

#: ``WorkflowParameterType.convert_value`` / ``MissingValueForParameter``: the run's 400s.
MISSING_PARAMETER = "Missing value for parameter {keys} in workflow {wpid}"
INVALID_PARAMETER = "Invalid workflow parameter. Expected parameter type: {type}. Value: {value}."
BOOLEAN_WORDS = {"true": True, "1": True, "false": False, "0": False}
#: ``InvalidCredentialId`` (400 before the run): a bound credential id that does not exist, or a
#: credential_id value that is not text; ``sanitize_credential_for_error`` hides ids with these words.
INVALID_CREDENTIAL = "Invalid credential ID: {ids}. Failed to resolve to a valid credential."
SENSITIVE_CREDENTIAL_WORDS = ("password", "username", "secret", "totp", "secret_value")
#: Parameters read from Bitwarden when the run's context is set up; with no Bitwarden configured
#: (as offline) the run fails before any block (``_validate_bitwarden_credentials``).
BITWARDEN_PARAMETER_TYPES = frozenset({"bitwarden_login_credential", "bitwarden_sensitive_information",
                                       "bitwarden_credit_card_data"})
CONTEXT_INIT_FAILED = "Failed to initialize workflow run context. failure reason: {reason}"


def unavailable_secret_store(parameters: list) -> str | None:
    """The run's failure reason when a parameter needs a secret store the run has none of."""
    if any(isinstance(p, dict) and p.get("parameter_type") in BITWARDEN_PARAMETER_TYPES for p in parameters):
        return CONTEXT_INIT_FAILED.format(reason="Unexpected error: Bitwarden client ID not found")
    return None


#: ``WorkflowHasNoBlocks``: a run of a workflow without blocks is refused (400).
NO_BLOCKS_TO_RUN = "Workflow {wpid} has no blocks to run. Add at least one block before running it."

#: Block types whose ``execute`` drives the browser agent (``BaseTaskBlock`` subclasses).
#: ``goto_url`` is one (``UrlBlock``): it navigates, writes a task row and leaves its page open
#: for the next browser block (observed on the real engine).
TASK_BLOCK_TYPES = frozenset({
    "task", "navigation", "extraction", "login", "action", "file_download", "validation", "goto_url",
})
#: ``MAX_PROMPT_BRANCH_EVAL_ATTEMPTS``: a malformed answer about natural-language criteria is asked again once.
PROMPT_BRANCH_EVAL_ATTEMPTS = 2
#: ``ValidationBlock.execute``: a validation block before any task row of the run terminates.
VALIDATION_FIRST = "Validation block should not be the first block"
#: ``LoopBlockExecutedResult.get_failure_reason``: a loop whose last child was canceled.
LOOP_CHILD_CANCELED = "Block({label}) with type {block_type} was canceled, canceling for loop"
#: ``FAILURE_IS_CONTINUABLE = False``: a failure (or termination) of these blocks cannot be
#: continued past, whatever ``continue_on_failure`` or ``next_loop_on_failure`` say.
NOT_CONTINUABLE_BLOCK_TYPES = frozenset({"terminate"})
#: Block statuses a run cannot go on from unless ``continue_on_failure`` allows it.
STOPPING_STATUSES = frozenset({"failed", "terminated", "timed_out", "canceled"})
#: ``classify_from_failure_reason`` (failure_classifier.py): a task failure whose reason has one of
#: these is an anti-bot block, and skips the task's remaining retries (§7); "access denied" counts
#: only without words of authentication near it.
ANTI_BOT_WORDS = ("captcha", "cloudflare", "turnstile", "bot detect", "bot block", "ip block", "request block",
                  "anti-bot", "human verification", "verify you are human")
AUTH_WORDS = ("login", "auth", "password", "permission", "credential")


def is_anti_bot_failure(reason: str | None) -> bool:
    text = (reason or "").lower()
    words = ANTI_BOT_WORDS if any(w in text for w in AUTH_WORDS) else (*ANTI_BOT_WORDS, "access denied")
    return any(w in text for w in words)

#: Task blocks' ``url`` after rendering (``InvalidUrl``), and a first browser block without one
#: (``MissingStarterUrl``; a later one, with the browser open on a blank page, fails with
#: "No Valid URL found in the first task of workflow run …").
MAX_URL_LENGTH = 2083
TASK_URL_MALFORMED = "Invalid url: malformed. Use an HTTP or HTTPS URL with at most 2083 characters."
MISSING_STARTER_URL = (
    "block '{label}' has no starting URL set. The first browser block must have a URL to navigate to. "
    "Set a URL on the block, or reference a workflow parameter (e.g. '{{{{ starting_url }}}}')."
)
