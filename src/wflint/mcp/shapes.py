"""The tools' outputs, declared once as pydantic models: the SDK publishes their JSON Schemas
as each tool's ``outputSchema`` and checks every result against them before it is sent.

A tool that cannot do its work answers ``{"error": {kind, message, hint}}`` with ``isError``.
Each result's schema admits that shape too (``_or_error``): clients built on the TypeScript SDK
(the MCP Inspector among them) check an error's structured content against the output schema
as well, and would otherwise replace the error with a schema mismatch.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def _or_error(schema: dict[str, Any], cls: type) -> None:
    """A result's schema, or the error shape: ``anyOf`` the two under an object root."""
    success = {key: schema.pop(key) for key in ("properties", "required") if key in schema}
    failure = ToolFailure.model_json_schema()
    failure = {key: failure[key] for key in ("type", "properties", "required", "description") if key in failure}
    schema["anyOf"] = [{"type": "object", **success},
                       {"type": "object", "properties": {"error": failure}, "required": ["error"]}]


class Result(BaseModel):
    """A tool's whole result (not a part of one): its schema admits the error shape."""

    model_config = ConfigDict(json_schema_extra=_or_error)


class Edit(BaseModel):
    """One change of the text: replace the characters from ``start_offset`` to ``end_offset``
    (Unicode code points from the start of the text) with ``new_text``. Apply a fix's edits in
    the order given (last place first) and the offsets stay right."""

    start_offset: int
    end_offset: int
    start_line: int
    start_column: int
    end_line: int
    end_column: int
    new_text: str


class Change(BaseModel):
    """The same fix in data terms: ``replace`` sets the value at ``json_path`` to ``value``;
    ``rename_key`` renames the key at ``json_path`` to ``new_key``."""

    op: Literal["replace", "rename_key"]
    json_path: str
    json_pointer: str
    value: Any = None
    value_omitted: bool = Field(False, description="the value is too long to repeat here: apply the edits")
    new_key: str | None = None


class Fix(BaseModel):
    id: int = Field(description="findings answered by one fix (a rename that also answers a reference's finding) "
                                "share its id: apply it once")
    title: str
    safety: Literal["safe", "unsafe"] = Field(description="unsafe fixes change what the service stores "
                                                          "(a name renamed to its near match): review them")
    edits: list[Edit]
    changes: list[Change]


class ServiceAnswer(BaseModel):
    status: int = Field(description="the HTTP status the service answers when the workflow is saved")
    detail: str | None = Field(None, description="the service's own detail text, where wflint knows it exactly "
                                                 "(a model error's 422 body is built from the message)")


class Finding(BaseModel):
    code: str
    name: str
    severity: Literal["info", "warning", "error"]
    message: str
    suggestion: str | None = None
    line: int
    column: int
    end_line: int
    end_column: int
    json_path: str = Field(description="the value the finding is about, e.g. $.workflow_definition.blocks[0].label")
    json_pointer: str
    at_key: bool = Field(description="the finding is about the key at json_path itself (unknown, misspelt)")
    service: ServiceAnswer | None = Field(None, description="the service refuses the save with this answer; "
                                                            "null when it accepts what this finding is about")
    fix: Fix | None = None


class Verdict(BaseModel):
    accepts: bool = Field(description="whether the service (at the target release) saves the workflow")
    status: int = Field(description="the HTTP status of the save: 200, or the first rejection's")
    detail: str | None = Field(None, description="the service's own detail text, where wflint knows it exactly")
    code: str | None = Field(None, description="the rule of the finding the service refuses first")
    reason: str | None = Field(None, description="that finding's message")


class Summary(BaseModel):
    total: int
    clean: bool = Field(description="no findings at all")
    fails: bool = Field(description="a finding at or above the project's fail level (default: error)")
    by_severity: dict[str, int]
    by_code: dict[str, int]
    service: Verdict


class CheckResult(Summary, Result):
    file: str
    release: str
    offset: int
    next_offset: int | None = Field(description="call check again with this offset for the next page")
    findings: list[Finding]
    next_step: str


class FixResult(Result):
    file: str
    changed: bool
    unsafe: bool
    changes: list[str]
    notes: list[str] = Field(description="problems found and deliberately left alone, with why")
    text: str = Field(description="the fixed text (this page of it: see text_next_offset)")
    text_offset: int
    text_next_offset: int | None
    text_length: int
    diff: str
    diff_truncated: bool
    remaining: Summary = Field(description="what check says of the fixed text")


class CaseRun(BaseModel):
    name: str
    status: str | None = Field(description="completed, failed, terminated, timed_out, canceled, or refused "
                                           "(the service would not save the workflow)")
    refused_status: int | None
    failure_reason: str | None
    summary: str
    blocks_run: list[str | None]
    failed_block: str | None
    outputs: dict[str, Any]
    trace: list[dict[str, Any]] = Field(description="one row per block run (this page: see trace_next_offset)")
    trace_total: int
    trace_next_offset: int | None
    unstubbed: list[str] = Field(description="what ran on a default for want of a stub in the case")
    timeline: str


class SimulateResult(Result):
    file: str
    network: bool
    errors_before_run: list[str]
    summary: str
    cases: list[CaseRun]


class RuleDoc(Result):
    code: str
    name: str
    severity: str
    summary: str
    documentation: str
    fix: Literal["safe", "unsafe", "none"]
    url: str | None


class FieldDoc(BaseModel):
    name: str
    type: str
    required: bool
    nullable: bool
    default: Any = None
    has_default: bool
    templated: str | None = Field(description="text: the value is a Jinja template rendered at run time; leaves: "
                                              "every string in it is; values: every value of the map is")
    deprecated: bool
    common: bool = Field(description="a field every block type has")
    description: str
    json_schema: dict[str, Any]


class BlockSchema(Result):
    block_type: str
    release: str
    title: str
    description: str
    notes: list[str]
    fields: list[FieldDoc]
    schemas: str = Field(description="the resource holding the whole request's JSON Schema at this release")


class Picture(BaseModel):
    index: int
    title: str | None
    mermaid: str | None
    problem: str | None
    findings: int


class GraphResult(Result):
    file: str
    mermaid: str | None = Field(description="the first workflow's routing as a Mermaid flowchart")
    workflows: list[Picture]


class ToolFailure(BaseModel):
    """What a tool answers (with isError) when it cannot do its work."""

    kind: str = Field(description="not_text, too_large, not_a_workflow, unreadable, unparseable, bad_argument, "
                                  "config or internal")
    message: str
    hint: str | None = None
