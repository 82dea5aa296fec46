"""The engine stage: what the service's engine does when a workflow runs (``service-runs.md``).

One place for run-time knowledge, used by the run-time rules (static: what the engine will
certainly do with any input), by ``wflint simulate`` / ``wflint test`` and by the mock's runs.
It works on the typed view (``wflint.workflow``) and on stub tables, and knows nothing of the
command line, the server or the output formats.

``semantics`` holds the engine's facts as small pure functions and constants (truthy strings,
the lone-``{{ }}`` test, loop limits, error-code syntax); the simulator builds on them, so a
correction the real engine forces lands once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any


def simulate(request: Mapping[str, Any], case: Mapping[str, Any], *, release: str = "1.0.56",
             network: bool = True, on_block: Callable[[dict[str, Any]], Any] | None = None,
             own_code_worker: bool = False) -> dict[str, Any]:
    """Run a workflow request offline against one stub case, as the engine of ``release`` would;
    the result is the normalised trace of ``service-runs.md`` (see ``runner.simulate``).
    ``own_code_worker``: the run's code blocks execute in a worker process of its own, stopped
    when the run ends (the mock's runs: no organization's code shares a process with another's);
    otherwise in the process's shared worker (``wflint simulate`` / ``wflint test``)."""
    # Imported here so the rules, which read only ``semantics``, do not pay for the simulator.
    from .runner import simulate as run

    return run(request, case, release=release, network=network, on_block=on_block, own_code_worker=own_code_worker)


__all__ = ["simulate"]
