"""The run endpoints (reference runs §1): start a run, read it, its timeline, cancel it; and
the mock-only stub registration under ``/_mock/``.

Starting a run checks, in the service's order: the body (422 list form), the webhook URL
(400), the workflow (404, only the caller's organization's), the parameters (400, before
anything is written); then the ``created`` run is committed, the reply is made from it, and
a worker takes it on (``run_worker``). Reads only ever show committed state.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, create_model
from starlette.requests import Request
from starlette.responses import Response

from . import params as run_params, replies as run_replies, stubs as stub_tables
from ..protocol.errors import Reply, detail, missing_body, not_found, shape_l
from ..protocol.intake import MISSING
from ..workflows.models import request_class, validate_json_path
from ..workflows.webhook_url import normalize_webhook_url, webhook_url_error

MAX_ELAPSED_MINUTES = 480
TOO_MANY = ("The mock already has {n} runs waiting or running (its 'queued-runs' limit; raise it with "
            "--limit queued-runs=N); retry later")


@lru_cache(maxsize=None)
def _proxy_field() -> tuple[Any, Any]:
    return request_class().model_fields["proxy_location"].annotation, Field(default="RESIDENTIAL", validate_default=True)


@lru_cache(maxsize=None)
def run_request_class() -> type[BaseModel]:
    """``WorkflowRunRequest`` (``agent_id`` or ``workflow_id``), in the service's field order."""
    proxy, default = _proxy_field()
    fields: dict[str, Any] = {
        "workflow_id": (str, Field(validation_alias=AliasChoices("agent_id", "workflow_id"))),
        "parameters": (dict[str, Any] | None, None), "title": (str | None, None),
        "proxy_location": (proxy, default), "webhook_url": (str | None, None), "totp_url": (str | None, None),
        "totp_identifier": (str | None, None), "browser_session_id": (str | None, None),
        "reuse_browser_session": (bool | None, None), "browser_profile_id": (str | None, None),
        "start_fresh_browser": (bool, False), "max_screenshot_scrolls": (int | None, None),
        "max_elapsed_time_minutes": (int | None, Field(default=None, ge=1, le=MAX_ELAPSED_MINUTES)),
        "extra_http_headers": (dict[str, str] | None, None), "cdp_connect_headers": (dict[str, str] | None, None),
        "browser_address": (str | None, None), "ai_fallback": (bool | None, None), "run_with": (str | None, None),
        "browser_type": (str | None, None), "run_metadata": (dict[str, str] | None, None),
        "file_ids": (list[str] | None, None),
    }
    return create_model("WorkflowRunRequest", __config__=ConfigDict(populate_by_name=True), **fields)


@lru_cache(maxsize=None)
def legacy_request_class() -> type[BaseModel]:
    """``WorkflowRequestBody`` of ``POST /api/v1/workflows/{wpid}/run``."""
    proxy, _ = _proxy_field()
    fields: dict[str, Any] = {
        "data": (dict[str, Any] | None, None), "proxy_location": (proxy, None),
        "webhook_callback_url": (str | None, None), "totp_verification_url": (str | None, None),
        "totp_identifier": (str | None, None), "browser_session_id": (str | None, None),
        "browser_profile_id": (str | None, None), "start_fresh_browser": (bool, False),
        "reuse_browser_session": (bool | None, None), "max_screenshot_scrolls": (int | None, None),
        "max_elapsed_time_minutes": (int | None, Field(default=None, ge=1, le=MAX_ELAPSED_MINUTES)),
        "extra_http_headers": (dict[str, str] | None, None), "cdp_connect_headers": (dict[str, str] | None, None),
        "browser_address": (str | None, None), "run_with": (str | None, None), "browser_type": (str | None, None),
        "ai_fallback": (bool | None, None), "run_metadata": (dict[str, str] | None, None),
    }
    return create_model("WorkflowRequestBody", **fields)


def _plain(value: Any) -> Any:
    """A validated proxy location as JSON (an enum's value, a GeoTarget's dump)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dict):
        return None
    return getattr(value, "value", value)


def _validated(cls: type[BaseModel], body: Any) -> BaseModel:
    if body is MISSING or body is None:
        raise missing_body()
    try:
        return validate_json_path(cls, body)
    except ValidationError as exc:
        raise shape_l(exc) from None


def _webhook(url: str | None, field_name: str, blocked: frozenset[str]) -> str | None:
    if not url:
        return url
    message = webhook_url_error(url, blocked)
    if message:
        raise detail(400, message.replace("webhook_callback_url", field_name))
    return normalize_webhook_url(url)


class Runs:
    """The run operations of one server (``ServerState.runs_api``)."""

    def __init__(self, state: Any) -> None:
        self.state = state

    # ------------------------------------------------------------------ start

    def start(self, org: str, wpid: str, *, data: dict[str, Any] | None, webhook_url: str | None,
              settings: dict[str, Any], echo: Callable[[dict[str, Any]], dict[str, Any]],
              signing_key: str | None) -> dict[str, Any]:
        """Check, then commit the ``created`` run; the stored record."""
        state = self.state
        workflow = state.store.latest(org, wpid, include_deleted=False)
        if workflow is None:
            raise detail(404, not_found(wpid))
        parameters = run_params.resolve(workflow.get("workflow_definition") or {}, data, wpid)
        if state.run_worker.pending() >= state.config.limits.queued_runs:
            raise Reply(429, {"detail": TOO_MANY.format(n=state.config.limits.queued_runs)}, {"Retry-After": "1"})
        registered = state.runs.stubs(org, wpid)
        now = state.now()
        record = {
            "run_id": state.new_id("wr"), "organization_id": org, "workflow_permanent_id": wpid,
            "workflow_id": workflow["workflow_id"], "workflow_version": workflow["version"],
            "workflow_title": workflow["title"], "status": "created", "failure_reason": None, "errors": [],
            "output": None, "parameters": parameters, "webhook_url": webhook_url, "webhook_failure_reason": None,
            "signing_key": signing_key, "run_with": workflow.get("run_with") or "agent",
            "created_at": now, "modified_at": now, "queued_at": None, "started_at": None, "finished_at": None,
            "stubs": stub_tables.for_run(registered, state.stub_directory, wpid, workflow["title"]),
            **settings,
        }
        record["request_echo"] = echo(record)
        state.runs.insert(record)
        return record

    def start_v1(self, org: str, body: Any, api_key: str | None) -> dict[str, Any]:
        req = _validated(run_request_class(), body)
        url = _webhook(req.webhook_url, "webhook_url", self.state.config.blocked_webhook_hosts)
        sent = req.model_dump(mode="json")
        proxy = _plain(req.proxy_location)
        settings = {"proxy_location": proxy, "totp_url": req.totp_url, "totp_identifier": req.totp_identifier,
                    "start_fresh_browser": req.start_fresh_browser, "reuse_browser_session": req.reuse_browser_session,
                    "extra_http_headers": req.extra_http_headers, "ai_fallback": req.ai_fallback}

        def echo(record: dict[str, Any]) -> dict[str, Any]:
            return {**sent, "proxy_location": proxy, "webhook_url": url, "title": record["workflow_title"],
                    "browser_type": None}

        record = self.start(org, req.workflow_id, data=req.parameters, webhook_url=url, settings=settings,
                            echo=echo, signing_key=api_key)
        self.state.run_worker.submit(record["run_id"], org)
        return run_replies.run_reply(record, as_created=True)

    def start_legacy(self, org: str, wpid: str, body: Any, api_key: str | None) -> dict[str, Any]:
        req = _validated(legacy_request_class(), body)
        url = _webhook(req.webhook_callback_url, "webhook_callback_url", self.state.config.blocked_webhook_hosts)
        proxy = _plain(req.proxy_location) or "RESIDENTIAL"
        settings = {"proxy_location": proxy, "totp_url": req.totp_verification_url,
                    "totp_identifier": req.totp_identifier, "start_fresh_browser": req.start_fresh_browser,
                    "reuse_browser_session": req.reuse_browser_session,
                    "extra_http_headers": req.extra_http_headers, "ai_fallback": req.ai_fallback}
        record = self.start(org, wpid, data=req.data, webhook_url=url, settings=settings,
                            echo=run_replies.rebuilt_request, signing_key=api_key)
        self.state.run_worker.submit(record["run_id"], org)
        return run_replies.legacy_started(record)

    # ------------------------------------------------------------------ reads

    def _get(self, org: str, run_id: str, message: str) -> dict[str, Any]:
        record = self.state.runs.get(run_id, org)
        if record is None:
            raise detail(404, message.format(run_id=run_id))
        return record

    def get(self, org: str, run_id: str) -> dict[str, Any]:
        return run_replies.run_reply(self._get(org, run_id, "Task run not found {run_id}"))

    def timeline(self, org: str, run_id: str) -> list[dict[str, Any]]:
        record = self._get(org, run_id, "Run not found {run_id}")
        return run_replies.timeline(record, self.state.runs.blocks(run_id))

    def status(self, org: str, run_id: str, wpid: str | None = None) -> dict[str, Any]:
        record = self._get(org, run_id, "WorkflowRun {run_id} not found")
        if wpid is not None and record["workflow_permanent_id"] != wpid:
            raise detail(404, f"WorkflowRun {run_id} not found")
        return run_replies.status_reply(record, steps_counted=wpid is not None)

    def cancel(self, org: str, run_id: str) -> None:
        """Cancel unless final; then the webhook is sent with the run as it now stands (the
        service sends it again for a run that had already finished)."""
        self._get(org, run_id, "Run not found {run_id}")
        now = self.state.now()
        record = self.state.runs.update(run_id, {"status": "canceled", "modified_at": now, "finished_at": now},
                                        unless_final=True) or self.state.runs.get(run_id)
        self.state.run_worker.cancel(run_id)  # stops the run's work, not only its status
        if record is not None and record.get("webhook_url"):
            # in the background: the service delivers before answering, but a slow receiver
            # must not hold the request past its time budget
            self.state.run_worker.deliver_webhook_later(record)

    # ------------------------------------------------------------------ mock-only stubs

    def put_stubs(self, org: str, wpid: str, body: Any) -> dict[str, Any]:
        if body is MISSING:
            raise detail(422, "Send the stub table as a JSON object (see docs/mock-runs.md)")
        try:
            table = stub_tables.check(body)
        except stub_tables.StubError as exc:
            raise detail(422, str(exc)) from None
        if self.state.store.latest(org, wpid, include_deleted=False) is None:
            raise detail(404, not_found(wpid))
        self.state.runs.set_stubs(org, wpid, table)
        return {"workflow_permanent_id": wpid, "stubs": table}

    def get_stubs(self, org: str, wpid: str) -> dict[str, Any]:
        table = self.state.runs.stubs(org, wpid)
        if table is None:
            raise detail(404, f"No stubs are registered for {wpid}")
        return {"workflow_permanent_id": wpid, "stubs": table}

    def delete_stubs(self, org: str, wpid: str) -> None:
        self.state.runs.set_stubs(org, wpid, None)


def api_key_of(request: Request) -> str | None:
    """The key that signs the run's webhook: the caller's ``x-api-key``."""
    return request.headers.get("x-api-key")


Handler = Callable[[Request], Any]


def routes(offload: Callable[..., Any], json_body: Callable[..., Any], authenticate: Callable[[Request], str]
           ) -> list[tuple[list[str], str, Handler]]:
    """(paths, method, handler) of every run route, for ``app._routes``."""
    def runs(request: Request) -> Runs:
        return request.app.state.wflint.runs_api

    def reading(fn: Callable[[Runs, str, Request], Any]) -> Handler:
        async def handler(request: Request) -> Response:
            return await offload(request, lambda _: fn(runs(request), authenticate(request), request))
        return handler

    def writing(fn: Callable[[Runs, str, Request, Any], Any]) -> Handler:
        async def handler(request: Request) -> Response:
            decode = await json_body(request)
            return await offload(request, lambda body: fn(runs(request), authenticate(request), request, body),
                                 decode=decode)
        return handler

    p = "{run_id}"
    both = lambda *paths: [x for path in paths for x in (path, path + "/")]  # noqa: E731
    return [
        (both("/v1/run/agents", "/v1/run/workflows"), "POST",
         writing(lambda r, org, req, body: r.start_v1(org, body, api_key_of(req)))),
        (both("/api/v1/workflows/{wpid}/run"), "POST",
         writing(lambda r, org, req, body: r.start_legacy(org, req.path_params["wpid"], body, api_key_of(req)))),
        (both(f"/v1/runs/{p}"), "GET", reading(lambda r, org, req: r.get(org, req.path_params["run_id"]))),
        (both(f"/v1/runs/{p}/timeline"), "GET",
         reading(lambda r, org, req: r.timeline(org, req.path_params["run_id"]))),
        (both(f"/v1/runs/{p}/cancel"), "POST", reading(lambda r, org, req: r.cancel(org, req.path_params["run_id"]))),
        (both(f"/api/v1/workflows/runs/{p}"), "GET",
         reading(lambda r, org, req: r.status(org, req.path_params["run_id"]))),
        (both(f"/api/v1/workflows/{{wpid}}/runs/{p}"), "GET",
         reading(lambda r, org, req: r.status(org, req.path_params["run_id"], req.path_params["wpid"]))),
        (["/_mock/stubs/{wpid}"], "PUT",
         writing(lambda r, org, req, body: r.put_stubs(org, req.path_params["wpid"], body))),
        (["/_mock/stubs/{wpid}"], "GET", reading(lambda r, org, req: r.get_stubs(org, req.path_params["wpid"]))),
        (["/_mock/stubs/{wpid}"], "DELETE",
         reading(lambda r, org, req: r.delete_stubs(org, req.path_params["wpid"]))),
    ]


def openapi_paths(op: Callable[..., dict[str, Any]], ref: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The run operations for ``/openapi.json``: (component schemas, paths)."""
    from pydantic.json_schema import models_json_schema

    refs, defs = models_json_schema([(run_request_class(), "validation")], ref_template=ref)
    body = refs[(run_request_class(), "validation")]["$ref"]
    run_id = {"name": "run_id", "in": "path", "required": True, "schema": {"type": "string"}}
    wpid = {"name": "workflow_permanent_id", "in": "path", "required": True, "schema": {"type": "string"}}
    stub_body = {"type": "object", "additionalProperties": False,
                 "properties": {k: {"type": "object"} for k in ("blocks", "tasks", "llm", "prompt_branches")}}
    paths = {
        "/v1/run/agents": {"post": op("Start a run of the latest version (answers at once, status created)",
                                      "400 403 404 413 422 429 503", body=body, reply={"type": "object"})},
        "/v1/runs/{run_id}": {"get": op("Get a run", "403 404 503", reply={"type": "object"}, params=[run_id])},
        "/v1/runs/{run_id}/timeline": {"get": op("A run's block rows, newest first", "403 404 503",
                                                 reply={"type": "array"}, params=[run_id])},
        "/v1/runs/{run_id}/cancel": {"post": op("Cancel a run (a final one is left as it is)", "403 404 503",
                                                reply={"type": "null"}, params=[run_id])},
        "/_mock/stubs/{workflow_permanent_id}": {
            "get": op("Mock only: the stubs registered for a workflow", "403 404 503", reply={"type": "object"},
                      params=[wpid]),
            "delete": op("Mock only: forget a workflow's stubs", "403 503", reply={"type": "null"}, params=[wpid]),
        },
    }
    paths["/_mock/stubs/{workflow_permanent_id}"]["put"] = op(
        "Mock only: register the stubs a workflow's runs use", "400 403 404 413 422 503", reply={"type": "object"},
        params=[wpid])
    paths["/_mock/stubs/{workflow_permanent_id}"]["put"]["requestBody"] = {
        "required": True, "content": {"application/json": {"schema": stub_body}}}
    return dict(defs.get("$defs", {})), paths
