"""Connections that cannot be held for ever: read deadlines and a cap on open connections.

uvicorn closes a keep-alive connection that stays idle after a response, but not one that
never finishes its request: a client that connects and says nothing, sends its headers a byte
at a time or stalls in its body keeps a descriptor for good (1,100 such clients took the mock
down under ``ulimit -n 1024``). This h11 protocol adds, per request cycle:

- a header deadline (``header-seconds``): from the connection (or the end of the previous
  response) to the end of the request's headers, whatever trickles in meanwhile;
- a body deadline (``body-seconds``): from the end of the headers to the end of the body;
- a cap on open connections (``connections``, clipped below the process's descriptor limit):
  a connection over it is closed at once, before it costs anything.

A connection past a deadline is closed (a request being answered is left to its own budget).
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..protocol.limits import ServerLimits

#: descriptors kept free for the store, the listening socket and the rest of the process
_RESERVED_DESCRIPTORS = 64


def connection_cap(limits: ServerLimits) -> int:
    """The ``connections`` limit, clipped below the soft descriptor limit."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return limits.connections
    if soft == resource.RLIM_INFINITY:
        return limits.connections
    return max(1, min(limits.connections, soft - _RESERVED_DESCRIPTORS))


class GuardedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, limits: ServerLimits, cap: int, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._limits = limits
        self._cap = cap
        self._deadline: asyncio.TimerHandle | None = None
        self._watching: Any = None  # the h11 state the deadline is for

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if len(self.connections) > self._cap:
            transport.abort()  # over the cap: refused before it can hold anything
            return
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watching = None  # a new cycle: a new header deadline
        self._watch()

    # ------------------------------------------------------------------ deadlines

    def _watch(self) -> None:
        """Arm the deadline of the client's current state (once per state per cycle)."""
        if self.transport is None or self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is self._watching:
            return
        self._disarm()
        self._watching = state
        if state is h11.IDLE:
            seconds = self._limits.header_seconds
        elif state is h11.SEND_BODY:
            seconds = self._limits.body_seconds
        else:
            return  # the request is in: the app's time budget takes over
        self._deadline = self.loop.call_later(seconds, self._expired, state)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self, state: Any) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state is not state:
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self.cycle.disconnected = True
            self.cycle.message_event.set()  # wakes a handler waiting for the rest of the body
        self.transport.close()


def protocol_factory(limits: ServerLimits) -> Any:
    """What uvicorn's ``Config(http=...)`` takes: the protocol class with the limits bound."""
    return functools.partial(GuardedH11Protocol, limits=limits, cap=connection_cap(limits))
