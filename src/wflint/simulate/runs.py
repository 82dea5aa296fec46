"""One case through the simulator, keeping the rendered inputs the timeline shows."""

from __future__ import annotations

from typing import Any

from ..engine.runner import Simulation


def run_case(request: dict[str, Any], case: dict[str, Any], *, network: bool = True,
             url_validation: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]], list[str]]:
    """The trace of ``case``, row by row the inputs each block rendered, and what ran on a
    default for want of a stub."""
    simulation = Simulation(request, case, network=network, url_validation=url_validation)
    result = simulation.run()
    return result, simulation.inputs, list(dict.fromkeys(simulation.stubs.unstubbed))
