"""``real_engine.py --serve PORT [--stubs DIR] [--host 127.0.0.1]``: the real 1.0.56 app over HTTP.

Runs INSIDE the skyvern-1.0.56 virtual environment. The same embedded app and seams as the batch
mode, served on loopback so that runs behave as the service's over time (``POST /v1/run/...``
answers ``created`` at once; the run goes on in the background; webhooks are sent at the end).
The release's venv has no ASGI server, so a small aiohttp front end (aiohttp is installed with
the release) hands each request to the app and answers as soon as the app has sent the response
body, while the app's background tasks (the run) carry on.

Stubs are found per run, like the mock's (``wflint serve --stubs``):
1. ``PUT /_mock/stubs/{workflow_permanent_id}`` with a stub table (``GET`` / ``DELETE`` too);
2. a ``--stubs DIR`` file ``*.json`` / ``*.yaml`` whose ``workflow`` key (else its file name) is the
   workflow's permanent id or title;
3. none: the defaults of README.md.

``GET /_oracle/received`` lists what the loopback server (``echo_url``) has received so far:
``[{method, path, json|text, headers, raw}]``, ``raw`` being the exact body (webhook signatures).

When the server is listening it prints one JSON line to stdout:
``{"url": "http://127.0.0.1:PORT", "api_key": "...", "echo_url": "http://127.0.0.1:PORT2"}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

BACKGROUND: set[asyncio.Task] = set()


class StubRegistry:
    def __init__(self, directory: Path | None) -> None:
        self.registered: dict[str, dict[str, Any]] = {}
        self.files: list[tuple[str, dict[str, Any]]] = []
        if directory is not None:
            for f in sorted(directory.iterdir()):
                if f.suffix not in (".json", ".yaml", ".yml"):
                    continue
                text = f.read_text(encoding="utf-8")
                if f.suffix == ".json":
                    data = json.loads(text)
                else:
                    import yaml

                    data = yaml.safe_load(text)
                if not isinstance(data, dict):
                    raise SystemExit(f"serve: {f}: a stub file holds one stub table (an object)")
                self.files.append((str(data.get("workflow") or f.stem), data))

    async def resolve(self, wpid: str | None) -> dict[str, Any]:
        if wpid in self.registered:
            return self.registered[wpid]
        if not self.files or not wpid:
            return {}
        title = None
        try:
            from skyvern.forge import app

            title = (await app.WORKFLOW_SERVICE.get_workflow_by_permanent_id(workflow_permanent_id=wpid)).title
        except Exception:  # noqa: BLE001 - an unknown workflow has no stubs
            pass
        for key, data in self.files:
            if key in (wpid, title):
                return data
        return {}


def _add_stub_routes(api: Any, registry: StubRegistry) -> None:
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    async def stubs(request: Any) -> Any:
        wpid = request.path_params["wpid"]
        if request.method == "PUT":
            try:
                body = json.loads(await request.body())
            except ValueError:
                return JSONResponse({"detail": "the stub table must be JSON"}, status_code=400)
            if not isinstance(body, dict):
                return JSONResponse({"detail": "the stub table must be an object"}, status_code=400)
            registry.registered[wpid] = body
            return JSONResponse(body)
        if request.method == "DELETE":
            registry.registered.pop(wpid, None)
            return Response(status_code=204)
        if wpid not in registry.registered:
            return JSONResponse({"detail": f"no stubs registered for {wpid}"}, status_code=404)
        return JSONResponse(registry.registered[wpid])

    async def received(request: Any) -> Any:
        import loopback

        return JSONResponse(loopback.RECEIVED)

    # first, so that no route of the app's can shadow them
    api.router.routes.insert(0, Route("/_mock/stubs/{wpid}", stubs, methods=["GET", "PUT", "DELETE"]))
    api.router.routes.insert(0, Route("/_oracle/received", received, methods=["GET"]))


def _asgi_handler(asgi_app: Any, host: str, port_of: Any):
    from aiohttp import web

    async def handle(request: web.Request) -> web.StreamResponse:
        body = await request.read()
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": request.method, "scheme": "http", "path": request.path,
            "raw_path": request.raw_path.split("?", 1)[0].encode(),
            "query_string": request.query_string.encode(), "root_path": "",
            "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()],
            "client": (request.remote or "127.0.0.1", 0), "server": (host, port_of()),
        }
        loop = asyncio.get_running_loop()
        answered = loop.create_future()
        start: dict[str, Any] = {}
        chunks: list[bytes] = []
        delivered = False

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await answered
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))
                if not message.get("more_body") and not answered.done():
                    answered.set_result(True)

        task = asyncio.create_task(asgi_app(scope, receive, send))
        BACKGROUND.add(task)
        task.add_done_callback(BACKGROUND.discard)
        await asyncio.wait([answered, task], return_when=asyncio.FIRST_COMPLETED)
        if not answered.done():
            exc = task.exception()
            return web.json_response({"detail": f"the real app raised {type(exc).__name__}: {exc}"}, status=500)
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in start.get("headers", [])
                   if k.lower() not in (b"content-length", b"transfer-encoding")]
        from multidict import CIMultiDict

        return web.Response(status=start.get("status", 200), headers=CIMultiDict(headers), body=b"".join(chunks))

    return handle


async def serve(port: int, host: str, stubs_dir: Path | None, out: Any, engine_cls: Any) -> int:
    from aiohttp import web

    import seams

    registry = StubRegistry(stubs_dir)
    engine = engine_cls()
    await engine.start()
    seams.RESOLVER = registry.resolve
    transport = engine.client.embedded_transport
    api = transport._transport.app
    _add_stub_routes(api, registry)

    site_ref: dict[str, Any] = {}

    def port_of() -> int:
        return site_ref.get("port", port)

    server = web.Server(_asgi_handler(api, host, port_of), client_max_size=64 * 1024 * 1024)
    runner = web.ServerRunner(server)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    actual = site._server.sockets[0].getsockname()[1]  # port 0 picks a free one
    site_ref["port"] = actual
    out.write(json.dumps({"url": f"http://{host}:{actual}", "api_key": transport._api_key,
                          "echo_url": engine.echo_url}) + "\n")
    out.flush()
    sys.stderr.write(f"real_engine: serving the real 1.0.56 app on http://{host}:{actual} "
                     f"(started in {engine.startup_s:.1f}s)\n")
    try:
        await asyncio.Event().wait()
    finally:
        await runner.cleanup()
    return 0


def main(argv: list[str], out: Any, engine_cls: Any, cwd: Path) -> int:
    """``engine_cls`` is real_engine's ``Engine`` (passed in: real_engine runs as ``__main__``, and
    importing it again would set up a second work directory); ``cwd`` is where the caller was."""
    ap = argparse.ArgumentParser(prog="real_engine.py --serve")
    ap.add_argument("port", type=int)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--stubs", type=Path, default=None, help="a directory of stub tables (json/yaml)")
    args = ap.parse_args(argv)
    if args.stubs is not None:
        args.stubs = cwd / args.stubs
    if args.stubs is not None and not args.stubs.is_dir():
        print(f"serve: --stubs {args.stubs}: not a directory", file=sys.stderr)
        return 2
    try:
        return asyncio.run(serve(args.port, args.host, args.stubs, out, engine_cls))
    except KeyboardInterrupt:
        return 0
