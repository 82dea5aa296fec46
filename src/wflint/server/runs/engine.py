"""The one place the mock's runs call wflint's engine (``wflint.engine.simulate``).

The contract, shared with ``wflint simulate``::

    simulate(request, case, *, release="1.0.56", network=True, on_block=None) -> dict

``request`` is the workflow request data as saved (``title``, ``workflow_definition``), ``case``
the stub table of a run (``name``, ``parameters``, ``blocks``, ``tasks``, ``llm``,
``prompt_branches``). The result is the normalised trace ``{name, status, failure_reason,
errors, outputs, trace: [{label, block_type, status, parent, index, value, output,
failure_reason}], llm_prompts}``, or ``{name, http_status, body}`` for a run refused before
it starts. ``on_block(row)`` is called as blocks start and finish.

A server is given an ``Executor`` (``ServerState.executor``); the default imports the engine
when the first run starts, so serving workflows never pays for it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol


class Executor(Protocol):
    def __call__(self, request: Mapping[str, Any], case: Mapping[str, Any], *, release: str = ...,
                 network: bool = ..., on_block: Callable[[dict[str, Any]], None] | None = ...) -> dict[str, Any]: ...


class EngineMissing(RuntimeError):
    """wflint was installed without its engine: runs fail with this reason."""


def engine_executor(request: Mapping[str, Any], case: Mapping[str, Any], *, release: str = "1.0.56",
                    network: bool = True, on_block: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    try:
        from ...engine import simulate  # type: ignore[attr-defined]
    except ImportError as exc:
        raise EngineMissing(f"wflint's engine cannot be imported ({exc}); the mock cannot run workflows") from None
    # each run's code executes in a worker of its own: nothing one organization's code does can
    # reach another's run (the worker is stopped when the run ends; at most
    # ``code_runner.MAX_LIVE_WORKERS`` live at once)
    return simulate(request, case, release=release, network=network, on_block=on_block, own_code_worker=True)


def workflow_request(workflow: Mapping[str, Any]) -> dict[str, Any]:
    """The request data the engine runs: the stored workflow's title, settings and definition,
    the definition turned back into its request form (``parameter_keys`` rather than the stored
    parameter objects), which is the form ``wflint.engine.simulate`` reads."""
    from ...workflow.stored_form import to_request

    keep = ("title", "description", "workflow_definition", "proxy_location", "webhook_callback_url",
            "totp_verification_url", "totp_identifier", "persist_browser_session", "model",
            "max_screenshot_scrolls", "extra_http_headers", "run_with", "ai_fallback", "cache_key",
            "max_elapsed_time_minutes", "status")
    out = {k: workflow[k] for k in keep if k in workflow}
    if isinstance(out.get("workflow_definition"), dict):
        out["workflow_definition"] = to_request({"workflow_definition": out["workflow_definition"]})["workflow_definition"]
    return out
