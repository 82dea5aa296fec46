"""A run's parameters, checked and resolved as the service does before it writes the run.

The rules (``setup_workflow_run``: missing values named in one sorted 400, then each value
converted to its declared type or a 400 naming type and value) are the engine model's
(``wflint.engine.params``), shared with ``wflint simulate``; this module turns its refusal into
the service's reply and keeps what a run stores: the ``workflow`` parameters that have a value.
Credential-id parameters are left alone: the mock has only ``--credential`` ids, and a run
without one is allowed by the service too.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..protocol.errors import detail


def resolve(definition: Mapping[str, Any], data: Mapping[str, Any] | None, wpid: str) -> dict[str, Any]:
    """The run's parameter values by key (what the run stores and the engine gets), or a 400."""
    from ...engine.params import RefusedRun, resolve as resolve_for_run

    try:
        values = resolve_for_run(dict(definition), dict(data or {}), wpid)
    except RefusedRun as refused:
        raise detail(400, refused.detail) from None
    workflow_keys = [p.get("key") for p in definition.get("parameters") or []
                     if isinstance(p, dict) and p.get("parameter_type") == "workflow"]
    # the engine model also lists secrets (as placeholders) and workflow keys left without a
    # value (None); the run stores only the workflow values it was given or defaulted
    return {k: values[k] for k in workflow_keys if values.get(k) is not None}
