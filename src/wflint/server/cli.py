"""``wflint serve``: run the mock service (registered on wflint's CLI group by the lead;
``python -m wflint.server`` runs it directly)."""

from __future__ import annotations

import sys

import click

from .protocol.auth import ENV_VAR, ApiKeys, KeySpecError

#: how long in-flight requests get to finish after SIGTERM/SIGINT
SHUTDOWN_GRACE_SECONDS = 0.5


def _folders(specs: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for spec in specs:
        folder_id, _, title = spec.partition("=")
        if not folder_id.strip():
            raise click.BadParameter(f"empty folder id in {spec!r}", param_hint="--folder")
        out[folder_id.strip()] = title.strip() or folder_id.strip()
    return out


def _target(version: str | None) -> str | None:
    from ..model.releases import UnknownRelease, check_release

    if version is None:
        return None
    try:
        return check_release(version)
    except UnknownRelease as exc:
        raise click.BadParameter(str(exc), param_hint="--target-version") from None


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None,
              help="SQLite file that keeps workflows and scripts across restarts (default: in memory).")
@click.option("--api-key", "api_keys", multiple=True, metavar="KEY[=ORG_ID]",
              help=f"Accepted x-api-key, optionally with its organization id. Repeatable; also read from ${ENV_VAR}.")
@click.option("--api-key-file", type=click.Path(exists=True, dir_okay=False), default=None,
              help="File with KEY[=ORG_ID] entries, one per line.")
@click.option("--seed", "seeds", multiple=True, type=click.Path(exists=True),
              help="Definition file or directory to create at start (ids derived from the path).")
@click.option("--seed-strict", is_flag=True, help="Refuse to start when a --seed file is invalid (default: report it, seed the rest).")
@click.option("--strict", is_flag=True, help="Also refuse definitions with wflint errors the service accepts.")
@click.option("--target-version", default=None, metavar="RELEASE",
              help="The service release to answer as [default: the newest modelled].")
@click.option("--credential", "credentials", multiple=True, metavar="CRED_ID",
              help="A credential id that exists (credential rotation lists must name existing ones).")
@click.option("--folder", "folders", multiple=True, metavar="FOLDER_ID[=TITLE]",
              help="A folder that exists in every organization.")
@click.option("--browser-type-supported", is_flag=True,
              help="Honour an explicit browser_type like Skyvern Cloud (default: refuse it like a self-hosted server).")
@click.option("--blocked-webhook-host", "blocked_hosts", multiple=True, metavar="HOST",
              help="A webhook host to refuse as blocked.")
@click.option("--limit", "limit_specs", multiple=True, metavar="NAME=N",
              help="Raise or lower a limit on hostile requests (body-bytes, depth, alias-nodes, alias-chars, loop-depth, "
                   "string-chars, search-chars, request-seconds, request-threads, heavy-workers, header-seconds, body-seconds, "
                   "connections, queued-runs; defaults in docs/mock.md). Repeatable.")
@click.option("--stubs", "stubs_dir", type=click.Path(exists=True, file_okay=False), default=None,
              help="Directory of stub tables for runs (DIR/<workflow id or title>.json|yaml; see docs/mock-runs.md).")
@click.option("--log-level", default="warning", show_default=True,
              type=click.Choice(["critical", "error", "warning", "info", "debug"]))
def serve(host: str, port: int, db_path: str | None, api_keys: tuple[str, ...], api_key_file: str | None,
          seeds: tuple[str, ...], seed_strict: bool, strict: bool, credentials: tuple[str, ...], folders: tuple[str, ...],
          browser_type_supported: bool, blocked_hosts: tuple[str, ...], limit_specs: tuple[str, ...],
          log_level: str, target_version: str | None = None, stubs_dir: str | None = None) -> None:
    """Serve a mock of the Skyvern workflow and script API on a local store."""
    import uvicorn

    from .http.app import create_app
    from .protocol.limits import ServerLimits
    from .seed import SeedError, seed
    from .state import ServerConfig, ServerState

    try:
        limits = ServerLimits().with_values(limit_specs)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--limit") from None

    try:
        keys = ApiKeys.resolve(api_keys, api_key_file)
    except KeySpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--api-key") from None
    try:  # bind before the store opens and the seeds are made and listed: a port in use is one line and exit 2,
        # said before anything claims to be serving (the socket is closed by the exit)
        sock = listening_socket(host, port)
    except OSError as exc:
        click.echo(f"wflint serve: cannot listen on {host}:{port}: {exc.strerror or exc} "
                   "(is another server running there? choose another --port)", err=True)
        sys.exit(2)
    config = ServerConfig(keys=keys, db_path=db_path, strict=strict,
                          browser_type_supported=browser_type_supported,
                          credentials=frozenset(credentials), folders=_folders(folders),
                          blocked_webhook_hosts=frozenset(h.lower() for h in blocked_hosts), limits=limits,
                          target_version=_target(target_version), stubs_dir=stubs_dir)
    from .runs.stubs import StubError

    try:
        state = ServerState(config)
    except StubError as exc:
        raise click.BadParameter(str(exc), param_hint="--stubs") from None
    if keys.generated:
        click.echo(f"development API key: {keys.generated} (organization {keys.orgs_by_key[keys.generated]})")
    if seeds:
        from pathlib import Path

        from ..project.config import ConfigError, discover as find_config

        failures: list = []
        try:  # the same configuration as `wflint check`: its exclude holds for seeds too
            lint_config = find_config(Path.cwd())
        except ConfigError as exc:
            click.echo(f"wflint serve: {exc}", err=True)
            sys.exit(2)
        try:
            for seeded in seed(state, keys.organizations[0], seeds, None if seed_strict else failures, lint_config):
                click.echo(seeded.line())
        except SeedError as exc:
            click.echo(f"wflint serve: seed failed: {exc}", err=True)
            sys.exit(2)
        for failure in failures:
            click.echo(f"wflint serve: {failure.line()}", err=True)
    click.echo(f"serving the mock service on http://{host}:{sock.getsockname()[1]} (store: {db_path or 'in memory'})")
    sys.stdout.flush()
    # SIGTERM: stop within a second; requests still working run in daemon threads, and every
    # write is one SQLite transaction, so leaving them behind loses nothing committed
    from .http.connections import protocol_factory

    # request threads that compute hand the interpreter lock back every millisecond rather
    # than every 5: /healthz and new connections wait less behind a costly request
    sys.setswitchinterval(0.001)
    from .workflows import verdict as engine_bridge

    engine_bridge.settle_after_first_check = True

    # idle and slow clients are closed (header-seconds, body-seconds), connections are capped
    server = uvicorn.Server(uvicorn.Config(create_app(state=state), log_level=log_level, http=protocol_factory(limits),
                                           timeout_graceful_shutdown=SHUTDOWN_GRACE_SECONDS))
    server.run(sockets=[sock])


def listening_socket(host: str, port: int):
    """A bound, listening TCP socket (port 0 picks a free one)."""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # accepted connections inherit it: without it a reply written in two parts waits for the
        # client's delayed ACK (about 40 ms a request on loopback)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    return sock
