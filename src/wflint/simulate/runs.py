"""One case through the simulator, keeping what a report needs besides the trace."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..engine.runner import Simulation


@dataclass
class CaseRun:
    """A case's run: the trace, and what explains it."""

    result: dict[str, Any]
    #: row by row, the inputs each block rendered (masked)
    inputs: list[dict[str, Any]] = field(default_factory=list)
    #: what ran on a default for want of a stub (``task:label``, ``llm:label`` ...)
    unstubbed: list[str] = field(default_factory=list)
    #: every HTTP request the blocks made (masked), with what answered it
    requests: list[dict[str, Any]] = field(default_factory=list)
    #: secret-bearing parameters a block refers to that the case's ``secrets:`` does not give
    missing_secrets: list[str] = field(default_factory=list)


def run_case(request: dict[str, Any], case: dict[str, Any], *, network: bool = True,
             url_validation: bool = False) -> CaseRun:
    simulation = Simulation(request, case, network=network, url_validation=url_validation)
    result = simulation.run()
    return CaseRun(result, simulation.inputs, list(dict.fromkeys(simulation.stubs.unstubbed)),
                   simulation.http.requests, simulation.missing_secrets)
