"""The JSON Schema of wflint's own ``*.test.yaml`` files and case files: not the service's model,
but kept beside it so every stage can read it (one source: ``wflint test`` validates with it,
``wflint schema`` writes it as ``test-file.schema.json``, the mock checks its stub tables with
it, and the language server completes and explains test files from it). Unknown keys are errors everywhere: a misspelt
``task:`` must not pass silently. The descriptions are what an editor shows on hover.
"""

from __future__ import annotations

from typing import Any

SCHEMA_ID = "https://wflint.dev/schemas/test-file.schema.json"

#: what each block type renders, as the timeline and ``inputs:`` expectations name it
INPUT_FIELDS: dict[str, tuple[str, ...]] = {
    "code": ("code", "printed"),
    "http_request": ("request", "body"),
    "text_prompt": ("prompt",),
    "conditional": ("branch",),
    "for_loop": ("loop_values",),
    "while_loop": ("loop_values",),
    "wait": ("wait_sec",),
    "terminate": ("reason",),
    "task": ("url", "navigation_goal", "data_extraction_goal", "complete_criterion", "terminate_criterion"),
}
ALL_INPUT_FIELDS = sorted({f for fields in INPUT_FIELDS.values() for f in fields})

_ANY: dict[str, Any] = {}


def _map_of(value: dict[str, Any], description: str) -> dict[str, Any]:
    return {"type": "object", "description": description, "additionalProperties": value}


def _strict(properties: dict[str, Any], description: str, required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "description": description, "properties": properties,
                              "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


_MATCHER = ("An expected value: equal, or a mapping with at least these keys, or one of the operators "
            "{equals: X}, {contains: X}, {matches: REGEX}.")

HTTP_RULE = _strict({
    "method": {"type": "string", "description": "The HTTP method it matches (any when absent)."},
    "url": {"type": "string", "description": "The exact URL it matches, as the block rendered it."},
    "url_matches": {"type": "string", "format": "regex", "description": "A regular expression searched in the URL."},
    "status": {"type": "integer", "minimum": 100, "maximum": 599, "description": "The status answered (200)."},
    "headers": _map_of({"type": ["string", "number", "boolean"]}, "Response headers."),
    "body": {"description": "The response body: a mapping or list is JSON, anything else text."},
    "error": {"type": "string", "description": "Fail the transport with this message instead of answering."},
    "timeout": {"type": "boolean", "description": "Time the request out instead of answering."},
    "times": {"type": "integer", "minimum": 1, "description": "Answer this many requests, then let the next matching rule answer."},
}, "One rule of the HTTP test double: which rendered requests it answers, and how.")

HTTP_TABLE = {"type": "array", "items": HTTP_RULE,
              "description": "The HTTP test double: rules matched in order against each request an http_request "
                             "block renders (after secrets are swapped in). A request no rule matches goes to the "
                             "network when it is on, and fails the block (and the case) when it is off."}

SECRETS = _map_of(
    {"oneOf": [{"type": "string"},
               _map_of({"type": ["string", "number", "null"]}, "A credential's fields (username, password, totp, ...).")]},
    "Values of the workflow's secret-bearing parameters, by parameter key: a string for aws_secret and "
    "azure_secret, a mapping of fields for credentials (credential, credential_id, bitwarden_*, onepassword, "
    "azure_vault_credential). Rendered as the engine's placeholders and masked as ***** in every report.")

BLOCK_EXPECT = {"oneOf": [
    {"type": "string", "description": "The block's status."},
    _strict({
        "status": {"description": "completed, failed, terminated, timed_out, canceled or skipped."},
        "output": {"description": "The block's output. " + _MATCHER},
        "failure_reason": {"description": "The block's failure reason. " + _MATCHER},
        "parent": {"description": "The loop or conditional it ran under."},
        "index": {"description": "Its loop iteration."},
        "value": {"description": "Its loop value."},
        "runs": {"description": "How many times it ran."},
    }, "What a block's (last, or LABEL[i]) execution must show."),
]}

REQUEST_EXPECT = _strict({
    "block": {"type": "string", "description": "Only requests of this http_request block."},
    "method": {"description": "The method. " + _MATCHER},
    "url": {"description": "The URL. " + _MATCHER},
    "headers": {"description": "The request headers (a mapping matches a subset). " + _MATCHER},
    "body": {"description": "The request body (a mapping matches a JSON subset). " + _MATCHER},
    "count": {"description": "How many requests match the other keys (default: at least one). " + _MATCHER},
}, "Requests the run made that must match: method, url, headers and body select them, count says how many.")

EXPECT = _strict({
    "status": {"description": "The run's status. " + _MATCHER},
    "failure_reason": {"description": "The run's failure reason. " + _MATCHER},
    "path": {"description": "Every block execution's label, in the order they started. " + _MATCHER},
    "visits": {"type": "array", "items": {"type": "string"}, "description": "Labels that must run."},
    "does_not_visit": {"type": "array", "items": {"type": "string"}, "description": "Labels that must not run."},
    "blocks": _map_of(BLOCK_EXPECT, "By LABEL or LABEL[i]: a block's status, output, failure_reason, parent, index, value, runs."),
    "inputs": _map_of(_strict({name: {"description": f"The rendered {name}. " + _MATCHER} for name in ALL_INPUT_FIELDS},
                              "What the block rendered."),
                      "By LABEL or LABEL[i]: what the block rendered (" + ", ".join(ALL_INPUT_FIELDS) + ")."),
    "outputs": {"description": "The run's outputs (LABEL_output keys, extracted_information). " + _MATCHER},
    "errors": {"description": "The run's errors list. " + _MATCHER},
    "llm_prompts": {"description": "The prompts sent to the LLM. " + _MATCHER},
    "http_status": {"description": "The status of a run refused before it starts (400). " + _MATCHER},
    "detail": {"description": "The refusal's detail. " + _MATCHER},
    "requests": {"type": "array", "items": REQUEST_EXPECT,
                 "description": "Expectations on the HTTP requests the run made (recorded by the http: test double)."},
}, "What the run must show; every key is optional.")

_STUB_TABLE = "By block label: "
CASE_PROPERTIES: dict[str, Any] = {
    "name": {"type": "string", "description": "The case's name (in reports and for -k)."},
    "parameters": {"type": "object", "description": "Run parameters by key, as POST /v1/run/agents takes them."},
    "secrets": SECRETS,
    "blocks": _map_of(_ANY, _STUB_TABLE + "replace the block's execution ({output: ...}, {fail: reason}, {status: ...}); "
                      "nothing of the block is rendered."),
    "tasks": _map_of({"type": ["object", "array"]}, _STUB_TABLE + "a browser-agent block's outcome "
                     "({status, extracted_information, failure_reason}); a list gives one per attempt."),
    "llm": _map_of(_ANY, _STUB_TABLE + "a text_prompt's answer (text, a JSON mapping, or {raise: message})."),
    "prompt_branches": _map_of({"type": ["boolean", "array"]}, _STUB_TABLE + "the results of natural-language branch criteria."),
    "http": HTTP_TABLE,
    "network": {"type": "boolean", "description": "Let requests no http: rule answers reach the network."},
    "expect": EXPECT,
}

CASE = _strict(CASE_PROPERTIES, "One test case: a stub case and what the run must show.")

TEST_FILE: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": SCHEMA_ID,
    "title": "wflint test file (NAME.test.yaml)",
    "description": "The cases of the workflow NAME.yaml beside it, run by `wflint test`.",
    "type": "object",
    "properties": {
        "workflow": {"type": "string", "description": "The workflow file tested, relative to this file "
                                                      "(default: NAME.yaml beside NAME.test.yaml)."},
        "network": {"type": "boolean", "description": "Every case's default for network."},
        "secrets": {**SECRETS, "description": "Secrets every case gets (a case's own secrets: win)."},
        "http": {**HTTP_TABLE, "description": "HTTP rules every case gets, after the case's own."},
        "cases": {"type": "array", "items": CASE, "description": "The test cases."},
    },
    "required": ["cases"],
    "additionalProperties": False,
}


def document() -> dict[str, Any]:
    """The schema as ``wflint schema`` writes it."""
    return TEST_FILE
