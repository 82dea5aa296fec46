"""The mock's limits on hostile requests: named, with defaults, set with ``--limit NAME=N``.

Each is checked before the work it guards and ends in a clear 4xx: the body size before the
body is read whole (413), the nesting of a JSON body before it is decoded and of a YAML
definition as it is loaded, and what YAML aliases add (nodes and characters) before anything
walks the expanded document (422). The nesting, alias and string defaults are the linter's (``document.limits``), so
the linter and the mock refuse the same documents. ``request_seconds``
is the backstop for anything the limits miss: a request still working after that long is
answered 503 and stores nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from ...document.limits import DEFAULT as LINTER


@dataclass(frozen=True)
class ServerLimits:
    #: bytes of one request body: above the linter's file limit, because the service takes script
    #: files of up to 10 MiB (about 14 MB once base64-encoded) in one body and must answer them
    body_bytes: int = 20 * 1024 * 1024
    #: nesting of objects and arrays in a JSON body, and of mappings and sequences in a YAML definition
    depth: int = LINTER.depth
    #: nodes that YAML aliases may add to a ``yaml_definition`` ("billion laughs")
    alias_nodes: int = LINTER.alias_nodes
    #: characters of string values that YAML aliases may add (one long string aliased many times)
    alias_chars: int = LINTER.alias_chars
    #: loops nested in loops. A valid deep loop costs little, but pydantic's error list for an
    #: invalid one doubles with each level (both loop models report the body's errors): at 8
    #: levels about 15,000 errors, 7 MB, a second
    loop_depth: int = 8
    #: characters of one string in a workflow body (a title, a prompt, a yaml_definition's values)
    string_chars: int = LINTER.string_chars
    #: characters of a list request's search_key or title (a longer one is a 422; the match is
    #: linear in the text whatever the term, this bounds the checks made at each hit)
    search_chars: int = 1000
    #: request threads (of every kind) working at once, abandoned ones included until they
    #: stop; more wait their turn within their time budget
    request_threads: int = 16
    #: seconds a request may work before it is answered 503 (nothing stored)
    request_seconds: float = 10.0
    #: seconds a client has to send a request's headers (from connecting, or from the end of
    #: the previous response); a connection still sending them is closed
    header_seconds: float = 10.0
    #: seconds a client has to send a request's body once its headers are in
    body_seconds: float = 60.0
    #: open connections at once (clipped below the process's descriptor limit); one more is closed at once
    connections: int = 512
    #: requests that create or update (CPU-heavy) running at once; more wait their turn
    heavy_workers: int = 2
    #: runs accepted and not finished (waiting or running); a start past it is answered 429
    queued_runs: int = 1000
    #: seconds a run may take, counted from its first start (restarts included), before it ends
    #: ``timed_out``; the service's own deadline (``max_elapsed_time_minutes``) applies too
    run_seconds: float = 600.0

    def with_values(self, specs: list[str] | tuple[str, ...]) -> "ServerLimits":
        """A copy with ``NAME=N`` specs applied (``-`` or ``_`` in names); ValueError on a bad one."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, float | int] = {}
        for spec in specs:
            key, sep, text = spec.partition("=")
            name = key.strip().replace("-", "_")
            if not sep or name not in known:
                names = ", ".join(n.replace("_", "-") for n in known)
                raise ValueError(f"{spec!r}: expected NAME=N with NAME one of {names}")
            kind = float if known[name].type in (float, "float") else int
            try:
                value = kind(text.strip())
            except ValueError:
                raise ValueError(f"{spec!r}: {text.strip()!r} is not a number") from None
            if not value > 0:
                raise ValueError(f"{spec!r}: a limit must be positive")
            changes[name] = value
        return replace(self, **changes)

