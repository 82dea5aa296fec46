"""One save, answered as the mock answers it, without a server: ``wflint simulate`` and
``wflint test`` use it so that a workflow the service refuses gives the service's own words."""

from __future__ import annotations

from typing import Any

from .protocol.auth import ApiKeys
from .protocol.errors import Reply
from .state import ServerConfig, ServerState
from .workflows.pipeline import save_workflow

_ORGANIZATION = "o_100000000000000000"


def save_answer(body: dict[str, Any]) -> tuple[int, Any] | None:
    """How the service answers ``POST /v1/agents`` with ``body`` (``{"json_definition": …}`` or
    ``{"yaml_definition": …}``) when it refuses it: (status, reply body), exactly as the mock
    answers; ``None`` when it would save it. A throwaway in-memory state: nothing is kept."""
    state = ServerState(ServerConfig(keys=ApiKeys.from_specs((f"simulate={_ORGANIZATION}",))))
    try:
        save_workflow(state, _ORGANIZATION, body, create=True)
    except Reply as reply:
        return (reply.status, reply.body) if reply.status >= 400 else None
    return None
