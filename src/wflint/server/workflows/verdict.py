"""The one place the server calls wflint's engine (stages C–G as lint rules).

``evaluate`` returns the service verdicts the engine attaches to its diagnostics, and the
wflint errors the service would accept (for ``--strict``). The checks live behind
``wflint.api.evaluate``; when it cannot be imported the server still runs, with the model
checks only.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from ...core.diagnostics import Diagnostic, ServiceVerdict


@dataclass
class EngineResult:
    rejections: list[ServiceVerdict] = field(default_factory=list)
    #: error-severity diagnostics without a service verdict: run-time failures
    errors: list[Diagnostic] = field(default_factory=list)


@functools.cache  # resolved once: a failed import would search the disk on every save
def _engine_evaluate() -> Any:
    # The linter's verdict is the library API's ``evaluate``; ``wflint.engine`` is the run-time
    # engine (service-runs.md), a different thing despite this module's historic name.
    try:
        from ...api import evaluate

        return evaluate
    except ImportError:
        return None


def evaluate(raw_request: Any, mode: str, target_version: str | None = None) -> EngineResult:
    """``raw_request`` is the request the service validates: the ``json_definition`` object,
    or the sanitized YAML document; ``target_version`` the release to answer as."""
    run = _engine_evaluate()
    if run is None or not isinstance(raw_request, dict):
        return EngineResult()
    kwargs: dict[str, Any] = {"mode": mode}
    if mode == "yaml":
        kwargs["sanitized"] = True
    if target_version is not None:
        from ...project.config import Config

        kwargs["config"] = Config(target_version=target_version)
    try:
        ev = run(raw_request, **kwargs)
    except TypeError:  # an engine without the ``sanitized`` keyword
        ev = run(raw_request, mode=mode)
    if settle_after_first_check:
        _freeze_loaded()
    errors = [d for d in ev.diagnostics if d.severity == "error" and d.service is None]
    return EngineResult(list(ev.rejections), errors)


#: set by ``wflint serve``, which owns its process (a test or tool driving the app in its own
#: process keeps its collector as it is)
settle_after_first_check = False


@functools.cache
def _freeze_loaded() -> None:
    """Once, after the first check: what it loaded (the rules, the model, the compiled
    validators) lives as long as the server, so it leaves the cycle collector's generations.
    Every later collection then scans a save's own objects only (7% of a save's CPU)."""
    import gc

    gc.freeze()


def order_key(order: tuple) -> tuple:
    """Numbers before text at each position, so ("C", 4, 2) < ("C", 4, 10) < ("D", 1)."""
    return tuple((0, x) if isinstance(x, (int, float)) else (1, str(x)) for x in order)


def stage_of(verdict: ServiceVerdict) -> str:
    """"A".."G"; stage C is split by check ("C1".."C6") since the server owns some of them."""
    order = verdict.order or ("",)
    stage = str(order[0])
    return f"C{order[1]}" if stage == "C" and len(order) > 1 else stage


def strict_body(errors: list[Diagnostic]) -> dict[str, Any]:
    """``--strict``: the definition is saved by the service but fails at run time."""
    lines = [f"{d.line}:{d.column}: {d.code} {d.message}" for d in errors]
    return {
        "detail": "wflint --strict refused the definition: " + "; ".join(lines),
        "diagnostics": [
            {"code": d.code, "name": d.name, "severity": d.severity, "message": d.message,
             "line": d.line, "column": d.column, "help": d.help}
            for d in errors
        ],
    }
