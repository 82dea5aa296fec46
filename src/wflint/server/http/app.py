"""The Starlette application: routes, the HTTP-level stages and replies (reference §6.2, §9).

Each workflow request goes through the service's HTTP stages in order: route and method
(A1), JSON decoding (A2), authentication (A3), the ``Idempotency-Key`` header on create (A4),
then the operation. Every reply carries the service's security headers; every error is one of
the service's body shapes.

The body is read on the event loop, bounded by the ``body-bytes`` limit (``intake``); all the
rest, decoding included, runs in a thread within the request's time budget (``budget``), so
a costly request never stalls the others.
"""

from __future__ import annotations

import logging
from typing import Any, Awaitable, Callable

from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from ...engine import json_values
from ..workflows import queries, scripts
from ..runs import endpoints as run_routes
from ..protocol.budget import run_in_thread
from ..protocol.errors import Reply, detail, missing_body, shape_l
from ..protocol.ids import idempotent_wpid
from ..protocol.intake import MISSING, decode_json, read_raw
from ..workflows.models import script_request_class, validate_json_path
from ..workflows.pipeline import save_workflow
from ..state import ServerConfig, ServerState

log = logging.getLogger("wflint.server")

SECURITY_HEADERS = {
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}
IDEMPOTENCY_ERROR = "Idempotency-Key must contain 1 to 255 visible ASCII bytes."
#: every route takes every method; ``_dispatch`` answers 405 itself, with the right ``Allow``
ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"]


def _state(request: Request) -> ServerState:
    return request.app.state.wflint


def authenticate(request: Request) -> str:
    """A3: the caller's organization id, or a 403."""
    org, problem = _state(request).config.keys.authenticate(request.headers)
    if org is None:
        raise detail(403, problem or "Invalid credentials")
    return org


def _json(status: int, body: Any, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=headers)


def _dumps(value: Any) -> str:
    # a non-finite float (a code block's NaN) is null, as the service's pydantic replies show it
    return json_values.dumps(value, ensure_ascii=False, separators=(",", ":"))


class _JsonText(str):
    """A reply body already rendered by ``_dumps`` (a list page joined from its items)."""


def _rendered(value: Any) -> Response:
    """A 200 reply rendered where it was made (the request's thread, not the event loop)."""
    text = value if isinstance(value, _JsonText) else _dumps(value)
    return Response(text.encode("utf-8"), media_type="application/json")


TOO_DEEP = ("The request nests too deeply to be checked (in its JSON, its YAML, a template or a script); "
            "the mock refuses it rather than fail")


async def offload(request: Request, work: Callable[[Any], Any], *, heavy: bool = False,
                  decode: Callable[[], Any] = lambda: None) -> Response:
    """Run ``work(decode())`` off the event loop within the request time budget (``budget``);
    CPU-heavy work (create, update, scripts) also waits for one of ``heavy_workers`` slots,
    after the body has passed the door checks in ``decode``."""
    state = _state(request)

    def run(body: Any) -> Response:
        try:
            return _rendered(work(body))
        except RecursionError:  # a backstop: the limits refuse the known deep inputs first
            raise detail(422, TOO_DEEP) from None

    return await run_in_thread(run, state.config.limits.request_seconds, state.heavy_gate if heavy else None,
                               decode, threads=state.thread_slots)


Handler = Callable[[Request], Awaitable[Response]]


def endpoint(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Turns ``errors.Reply`` into the reply and anything unexpected into the service's
    shape-E 500 (the server should never get there: see DIFFERENCES.md)."""
    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except Reply as reply:
            return _json(reply.status, reply.body, reply.headers)
        except Exception as exc:  # noqa: BLE001 - the last line of defence
            log.exception("unexpected error in %s %s", request.method, request.url.path)
            return _json(500, {"error": f"Unexpected error: {type(exc).__name__}"})
    return run


async def _json_body(request: Request, *, long_strings: bool = False) -> Callable[[], Any]:
    """Reads the body now (413 past the limit); returns the decoding, to run in the thread."""
    limits = _state(request).config.limits
    raw = await read_raw(request, limits)
    return lambda: decode_json(raw, request.headers.get("content-type"), limits, long_strings=long_strings)


async def _text_body(request: Request) -> str:
    return (await read_raw(request, _state(request).config.limits)).decode("utf-8", "replace")


def endpoint_raw(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    """Like ``endpoint`` for a handler that makes its own response."""
    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except Reply as reply:
            return _json(reply.status, reply.body)
    return run


# --------------------------------------------------------------------------- workflow operations


async def create_workflow(request: Request) -> Response:
    decode = await _json_body(request)

    def work(body: Any) -> Any:
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

    return await offload(request, work, heavy=True, decode=decode)


async def update_workflow(request: Request) -> Response:
    decode = await _json_body(request)

    def work(body: Any) -> Any:
        org = authenticate(request)
        return save_workflow(_state(request), org, body, wpid=request.path_params["wpid"])[0]

    return await offload(request, work, heavy=True, decode=decode)


async def list_workflows(request: Request) -> Response:
    return await offload(request, lambda _: _JsonText(queries.list_workflows_json(
        _state(request), authenticate(request), request.query_params, _dumps)))


async def get_workflow(request: Request) -> Response:
    return await offload(request, lambda _: queries.get_workflow(
        _state(request), authenticate(request), request.path_params["wpid"], request.query_params))


async def workflow_versions(request: Request) -> Response:
    return await offload(request, lambda _: queries.workflow_versions(
        _state(request), authenticate(request), request.path_params["wpid"], request.query_params))


async def delete_workflow(request: Request) -> Response:
    def work(_: Any) -> None:
        queries.delete_workflow(_state(request), authenticate(request), request.path_params["wpid"])

    return await offload(request, work)


async def legacy_create(request: Request) -> Response:
    """``POST /api/v1/workflows``: the body is the YAML text itself (sanitized)."""
    text = await _text_body(request)

    def work(_: Any) -> Any:
        org = authenticate(request)
        return save_workflow(_state(request), org, {"yaml_definition": text}, create=True)[0]

    return await offload(request, work, heavy=True)


async def legacy_update(request: Request) -> Response:
    """``PUT /api/v1/workflows/{wpid}``: YAML text body, not sanitized, ``expected_version``."""
    text = await _text_body(request)

    def work(_: Any) -> Any:
        org = authenticate(request)
        state, wpid = _state(request), request.path_params["wpid"]
        expected = queries.parse_query(queries.ExpectedVersionQuery, request.query_params).expected_version
        if expected is not None:
            latest = state.store.latest(org, wpid, include_deleted=True)
            if latest is not None and latest["version"] != expected:
                raise detail(409, f"Concurrent update detected for workflow {wpid}. Please retry.")
        return save_workflow(state, org, {"yaml_definition": text}, wpid=wpid, sanitize_yaml=False)[0]

    return await offload(request, work, heavy=True)


# --------------------------------------------------------------------------- scripts


def _create_script(request: Request, body: Any) -> Any:
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


async def create_script(request: Request) -> Response:
    decode = await _json_body(request, long_strings=True)  # file contents are long strings
    return await offload(request, lambda body: _create_script(request, body), heavy=True, decode=decode)


# --------------------------------------------------------------------------- runs

NO_RUNS = ("wflint serve is a mock of the workflow API: it stores, validates and runs workflows, but has no "
           "task runs, run lists, bulk cancel or artifacts ({method} {path} is not implemented)")
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


async def healthz(request: Request) -> Response:
    return _json(200, {"status": "ok"})


async def openapi(request: Request) -> Response:
    from .openapi import document

    return _json(200, document())


def _dispatch(handlers: dict[str, Handler]) -> Callable[[Request], Awaitable[Response]]:
    """One route per path: the handler of the request's method, or 405 with every method the
    path serves in ``Allow`` (as ``/openapi.json`` lists them)."""
    allow = ", ".join(handlers)
    wrapped = {method: endpoint(h) for method, h in handlers.items()}

    async def run(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method  # as Starlette serves HEAD
        handler = wrapped.get(method)
        if handler is None:
            return _json(405, {"detail": "Method Not Allowed"}, {"Allow": allow})
        return await handler(request)
    return run


def _routes() -> list[Route]:
    by_path: dict[str, dict[str, Handler]] = {}

    def add(paths: list[str], handler: Handler, method: str) -> None:
        for p in paths:
            by_path.setdefault(p, {})[method] = handler

    wf = "{wpid}"
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
    served: dict[str, dict[str, Handler]] = {}
    for paths, method, handler in run_routes.routes(offload, _json_body, authenticate):
        for p in paths:
            served.setdefault(p, {})[method] = handler
    # before the workflow routes: POST /v1/workflows/run must not read as an update of "run"
    # the unserved ones first: POST /v1/runs/cancel must not read as /v1/runs/{run_id}
    runs = [Route(p, endpoint_raw(not_running), methods=["GET", "POST"]) for p in RUN_PATHS if p not in served]
    runs += [Route(p, _dispatch(h), methods=ANY_METHOD) for p, h in served.items()]
    return runs + [Route(path, _dispatch(handlers), methods=ANY_METHOD) for path, handlers in by_path.items()]


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
