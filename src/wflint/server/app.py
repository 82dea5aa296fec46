"""The Starlette application: routes, the HTTP-level stages and replies (reference §6.2, §9).

Each workflow request goes through the service's HTTP stages in order: route and method
(A1, Starlette's router), JSON decoding (A2), authentication (A3), the ``Idempotency-Key``
header on create (A4), then the operation. Every reply carries the service's security
headers; every error is one of the service's body shapes.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Awaitable, Callable

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from . import queries, scripts
from .errors import Reply, detail, json_invalid, missing_body, shape_l
from .ids import idempotent_wpid
from .models import script_request_class, validate_json_path
from .pipeline import MISSING, save_workflow
from .state import ServerConfig, ServerState

log = logging.getLogger("wflint.server")

SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}
IDEMPOTENCY_ERROR = "Idempotency-Key must contain 1 to 255 visible ASCII bytes."


def _state(request: Request) -> ServerState:
    return request.app.state.wflint


def _is_json(content_type: str) -> bool:
    main = content_type.split(";", 1)[0].strip().lower()
    return main == "application/json" or (main.startswith("application/") and main.endswith("+json"))


async def read_body(request: Request) -> Any:
    """A2, the way FastAPI reads a JSON body: no bytes is "missing"; a JSON (or absent)
    content type is decoded, where malformed JSON is a 422; any other content type is passed
    on as text, which the body model then refuses."""
    raw = await request.body()
    if not raw:
        return MISSING
    content_type = request.headers.get("content-type")
    if content_type is None or _is_json(content_type):
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise json_invalid(exc.pos, exc.msg) from None
        except UnicodeDecodeError:
            raise detail(400, "There was an error parsing the body") from None
    return raw.decode("utf-8", "replace")


def authenticate(request: Request) -> str:
    """A3: the caller's organization id, or a 403."""
    org, problem = _state(request).config.keys.authenticate(request.headers)
    if org is None:
        raise detail(403, problem or "Invalid credentials")
    return org


def _json(status: int, body: Any) -> JSONResponse:
    return JSONResponse(body, status_code=status)


Handler = Callable[[Request], Awaitable[Any]]


def endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Turns ``errors.Reply`` into the reply and anything unexpected into the service's
    shape-E 500 (the server should never get there: see DIFFERENCES.md)."""
    async def run(request: Request) -> Response:
        try:
            return _json(200, await handler(request))
        except Reply as reply:
            return _json(reply.status, reply.body)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            log.exception("unexpected error in %s %s", request.method, request.url.path)
            return _json(500, {"error": f"Unexpected error: {type(exc).__name__}"})
    return run


def endpoint_raw(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Like ``endpoint`` for a handler that makes its own response."""
    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except Reply as reply:
            return _json(reply.status, reply.body)
    return run


# --------------------------------------------------------------------------- workflow operations


async def create_workflow(request: Request) -> Any:
    body = await read_body(request)
    org = authenticate(request)
    key = request.headers.get("idempotency-key")
    if key is not None and not (1 <= len(key) <= 255 and all(0x21 <= ord(c) <= 0x7E for c in key)):
        raise detail(422, IDEMPOTENCY_ERROR)
    state = _state(request)
    folder = request.query_params.get("folder_id")
    if key is None:
        return save_workflow(state, org, body, create=True, folder_id=folder)[0]
    wpid = idempotent_wpid(org, key)
    with state.creating(wpid):
        return save_workflow(state, org, body, create=True, wpid=wpid, folder_id=folder, idempotent=True)[0]


async def update_workflow(request: Request) -> Any:
    body = await read_body(request)
    org = authenticate(request)
    return save_workflow(_state(request), org, body, wpid=request.path_params["wpid"])[0]


async def list_workflows(request: Request) -> Any:
    org = authenticate(request)
    return queries.list_workflows(_state(request), org, request.query_params)


async def get_workflow(request: Request) -> Any:
    org = authenticate(request)
    return queries.get_workflow(_state(request), org, request.path_params["wpid"], request.query_params)


async def workflow_versions(request: Request) -> Any:
    org = authenticate(request)
    return queries.workflow_versions(_state(request), org, request.path_params["wpid"], request.query_params)


async def delete_workflow(request: Request) -> Any:
    org = authenticate(request)
    queries.delete_workflow(_state(request), org, request.path_params["wpid"])
    return None


async def legacy_create(request: Request) -> Any:
    """``POST /api/v1/workflows``: the body is the YAML text itself (sanitized)."""
    text = (await request.body()).decode("utf-8", "replace")
    org = authenticate(request)
    return save_workflow(_state(request), org, {"yaml_definition": text}, create=True)[0]


async def legacy_update(request: Request) -> Any:
    """``PUT /api/v1/workflows/{wpid}``: YAML text body, not sanitized, ``expected_version``."""
    text = (await request.body()).decode("utf-8", "replace")
    org = authenticate(request)
    state, wpid = _state(request), request.path_params["wpid"]
    expected = queries.parse_query(queries.ExpectedVersionQuery, request.query_params).expected_version
    if expected is not None:
        latest = state.store.latest(org, wpid, include_deleted=True)
        if latest is not None and latest["version"] != expected:
            raise detail(409, f"Concurrent update detected for workflow {wpid}. Please retry.")
    return save_workflow(state, org, {"yaml_definition": text}, wpid=wpid, sanitize_yaml=False)[0]


# --------------------------------------------------------------------------- scripts


async def create_script(request: Request) -> Any:
    body = await read_body(request)
    org = authenticate(request)
    if body is MISSING or body is None:
        raise missing_body()
    try:
        req = validate_json_path(script_request_class(), body)
    except ValidationError as exc:
        raise shape_l(exc) from None
    if req.run_id is not None:  # the mock has no runs
        raise detail(404, f"Run_id {req.run_id} not found")
    files = [f.model_dump(mode="json") for f in req.files or []]
    try:
        checked = scripts.check_files(files)
    except scripts.ScriptRefused as refused:
        raise detail(400, refused.detail) from None
    state = _state(request)
    created_at = state.now()
    files_at = state.now()
    summary = {"script_id": state.new_id("s"), "version": 1, "run_id": req.run_id, "file_count": len(checked),
               "file_tree": scripts.file_tree(checked, files_at), "created_at": created_at}
    state.store.insert_script(org, summary, req.workflow_id,
                              [(f.path, f.content, f.mime_type, f.content_hash, files_at) for f in checked])
    return summary


# --------------------------------------------------------------------------- runs

NO_RUNS = ("wflint serve is a mock of the workflow API: it stores and validates workflows but does not run "
           "them, so it has no runs, tasks or run status ({method} {path} is not implemented)")
#: the service's run endpoints (what the official client and CLI call to run a workflow or task)
RUN_PATHS = ["/v1/run/workflows", "/v1/run/agents", "/v1/run/tasks", "/v1/run/tasks/login",
             "/v1/run/tasks/download_files", "/v1/runs", "/v1/runs/cancel", "/v1/runs/{run_id}",
             "/v1/runs/{run_id}/cancel", "/v1/runs/{run_id}/timeline", "/v1/runs/{run_id}/artifacts",
             "/v1/workflows/run", "/api/v1/workflows/{wpid}/run", "/api/v1/tasks"]


async def not_running(request: Request) -> Response:
    """501 with a message that says why, instead of a 404 that blames the workflow."""
    authenticate(request)
    return _json(501, {"detail": NO_RUNS.format(method=request.method, path=request.url.path)})


# --------------------------------------------------------------------------- service routes


async def healthz(request: Request) -> Any:
    return {"status": "ok"}


async def openapi(request: Request) -> Any:
    from .openapi import document

    return document()


def _routes() -> list[Route]:
    r: list[Route] = []

    def add(paths: list[str], handler: Handler, method: str) -> None:
        r.extend(Route(p, endpoint(handler), methods=[method]) for p in paths)

    wf = "{wpid}"
    # before the workflow routes: POST /v1/workflows/run must not read as an update of "run"
    r.extend(Route(p, endpoint_raw(not_running), methods=["GET", "POST"]) for p in RUN_PATHS)
    add(["/v1/agents", "/v1/agents/", "/v1/workflows", "/v1/workflows/"], create_workflow, "POST")
    add([f"/v1/agents/{wf}", f"/v1/agents/{wf}/", f"/v1/workflows/{wf}", f"/v1/workflows/{wf}/"], update_workflow, "POST")
    # GET /v1/agents/ and GET /v1/agents/{wpid}/ answer 405, as in the service: those paths exist for POST only
    add(["/v1/agents", "/v1/workflows", "/v1/workflows/", "/api/v1/workflows", "/api/v1/workflows/"], list_workflows, "GET")
    add([f"/v1/agents/{wf}", f"/v1/workflows/{wf}", f"/v1/workflows/{wf}/", f"/api/v1/workflows/{wf}"], get_workflow, "GET")
    versions = [f"{base}/{wf}/versions{slash}" for base in ("/v1/agents", "/v1/workflows", "/api/v1/workflows") for slash in ("", "/")]
    add(versions, workflow_versions, "GET")
    add([f"/v1/agents/{wf}/delete", f"/v1/agents/{wf}/delete/", f"/v1/workflows/{wf}/delete", f"/v1/workflows/{wf}/delete/"], delete_workflow, "POST")
    add([f"/api/v1/workflows/{wf}"], delete_workflow, "DELETE")
    add(["/api/v1/workflows"], legacy_create, "POST")
    add([f"/api/v1/workflows/{wf}"], legacy_update, "PUT")
    add(["/v1/scripts", "/v1/scripts/"], create_script, "POST")
    add(["/healthz"], healthz, "GET")
    add(["/openapi.json"], openapi, "GET")
    return r


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)


class SecurityHeaders:
    """Pure ASGI middleware: the service's three headers on every response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items()]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(config: ServerConfig | None = None, state: ServerState | None = None) -> Starlette:
    """The mock service. Pass a ``state`` to share a store, or a ``config`` to make one."""
    from starlette.middleware import Middleware

    app = Starlette(routes=_routes(), exception_handlers={HTTPException: _http_error},
                    middleware=[Middleware(SecurityHeaders)])
    app.router.redirect_slashes = False  # the service answers 404/405, never a redirect
    app.state.wflint = state or ServerState(config or ServerConfig())
    return app
