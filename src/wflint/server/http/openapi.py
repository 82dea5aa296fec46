"""``GET /openapi.json``: the served operations, described from the generated schemas.

Request bodies come from the pydantic models the server validates with (themselves generated
from the declarative model); replies from wflint's response schemas (``wflint.model.schema``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from pydantic.json_schema import models_json_schema

from ..workflows import models

REF = "#/components/schemas/{model}"


def _components() -> tuple[dict[str, Any], dict[str, str]]:
    envelope, script = models.envelope_class(), models.script_request_class()
    refs, defs = models_json_schema([(envelope, "validation"), (script, "validation")], ref_template=REF)
    schemas = dict(defs.get("$defs", {}))
    try:
        from ...model.schema import response_defs

        text = json.dumps(response_defs()).replace("#/$defs/", "#/components/schemas/")
        schemas.update(json.loads(text))
    except ImportError:  # pragma: no cover - the schema module ships with wflint
        pass
    names = {"envelope": refs[(envelope, "validation")]["$ref"], "script": refs[(script, "validation")]["$ref"]}
    return schemas, names


_ERROR = {"type": "object", "required": ["detail"], "properties": {"detail": {}}}
#: every status an operation can answer, with what it means
_STATUSES = {
    "400": "Refused by one of the service's checks",
    "403": "Missing or unknown x-api-key",
    "404": "Unknown workflow, version, folder, recording or run",
    "409": "Concurrent update, or an idempotent create still in progress",
    "413": "Body larger than the body-bytes limit",
    "422": "Validation error, or over one of the mock's limits",
    "429": "Over the queued-runs limit (Retry-After)",
    "503": "Over the request-seconds budget; nothing was stored (Retry-After)",
}


def _op(summary: str, statuses: str, *, body: str | None = None, reply: dict[str, Any] | None = None,
        params: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``statuses``: the error statuses the operation answers, e.g. "403 422 503"."""
    responses: dict[str, Any] = {"200": {"description": "OK", "content": {"application/json": {"schema": reply or {}}}}}
    for status in statuses.split():
        responses[status] = {"description": _STATUSES[status], "content": {"application/json": {"schema": _ERROR}}}
    op: dict[str, Any] = {"summary": summary, "security": [{"ApiKey": []}], "responses": responses}
    if body:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": {"$ref": body}}}}
    if params:
        op["parameters"] = params
    return op


def _q(name: str, schema: dict[str, Any], description: str = "") -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "schema": schema, "description": description}


_WPID = {"name": "workflow_permanent_id", "in": "path", "required": True, "schema": {"type": "string"}}
_WORKFLOW_STATUSES = ["published", "draft", "auto_generated", "importing", "import_failed"]


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    schemas, names = _components()
    workflow = {"$ref": REF.format(model="WorkflowResponse")}
    list_params = [
        _q("page", {"type": "integer", "minimum": 1, "default": 1}),
        _q("page_size", {"type": "integer", "minimum": 1, "default": 10}),
        _q("only_saved_tasks", {"type": "boolean", "default": False}),
        _q("only_workflows", {"type": "boolean", "default": False}),
        _q("only_templates", {"type": "boolean", "default": False}),
        _q("search_key", {"type": "string"}, "Case-insensitive substring over titles, folder titles, ids and parameters."),
        _q("title", {"type": "string"}, "Deprecated: same as search_key when search_key is empty."),
        _q("folder_id", {"type": "string"}),
        _q("status", {"type": "array", "items": {"enum": _WORKFLOW_STATUSES}}, "Default: published and draft."),
        _q("tags", {"type": "array", "items": {"type": "string"}, "maxItems": 20}),
        _q("template", {"type": "boolean", "default": False}),
    ]
    paths: dict[str, Any] = {}
    saves = "400 403 404 409 413 422 503"
    for base in ("/v1/agents", "/v1/workflows"):
        paths[base] = {
            "get": _op("List workflows (latest version of each, newest first)", "400 403 422 503", params=list_params,
                       reply={"type": "array", "items": workflow}),
            "post": _op("Create workflow", saves, body=names["envelope"], reply=workflow,
                        params=[_q("folder_id", {"type": "string"})]),
        }
        paths[base + "/{workflow_permanent_id}"] = {
            "get": _op("Get workflow", "400 403 404 422 503", reply=workflow,
                       params=[_WPID, _q("version", {"type": "integer"}), _q("template", {"type": "boolean"})]),
            "post": _op("Update workflow (stores a new version)", saves, body=names["envelope"], reply=workflow,
                        params=[_WPID]),
        }
        paths[base + "/{workflow_permanent_id}/versions"] = {
            "get": _op("Every non-deleted version, newest first", "403 422 503",
                       reply={"type": "array", "items": workflow}, params=[_WPID, _q("template", {"type": "boolean"})])}
        paths[base + "/{workflow_permanent_id}/delete"] = {
            "post": _op("Soft-delete every version", "403 503", reply={"type": "null"}, params=[_WPID])}
    paths["/v1/scripts"] = {"post": _op("Create script", "400 403 404 413 422 503", body=names["script"],
                                        reply={"$ref": REF.format(model="ScriptSummary")})}
    paths["/healthz"] = {"get": {"summary": "Liveness", "responses": {"200": {"description": "OK"}}}}
    from ..runs.endpoints import openapi_paths

    run_schemas, run_paths = openapi_paths(_op, REF)
    schemas.update(run_schemas)
    paths.update(run_paths)
    return {
        "openapi": "3.1.0",
        "info": {"title": "wflint serve: mock of the Skyvern workflow service", "version": "1.0.56"},
        "paths": paths,
        "components": {"schemas": schemas,
                       "securitySchemes": {"ApiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"}}},
    }
