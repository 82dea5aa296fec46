"""Helpers for driving the mock in-process (wflint's own tests use them; so can yours)."""

from __future__ import annotations

import warnings
from typing import Any

from .http.app import create_app
from .protocol.auth import ApiKeys
from .state import ServerConfig, ServerState

with warnings.catch_warnings():  # starlette nags about its httpx-based client; it works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


def make_state(keys: tuple[str, ...] = ("key-a=o_100000000000000000", "key-b=o_200000000000000000"),
               **config: Any) -> ServerState:
    return ServerState(ServerConfig(keys=ApiKeys.from_specs(keys), **config))


def make_client(state: ServerState | None = None, **config: Any) -> TestClient:
    """A client of a fresh in-memory mock; ``config`` goes to ``ServerConfig``."""
    return TestClient(create_app(state=state or make_state(**config)))
