"""wflint: lint Skyvern workflow definitions offline, and mock the service's API.

The library API lives in ``wflint.api``; its main names are re-exported here lazily, so that
``import wflint.model`` (used by the schema generator and the server) stays light.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.2.0"

_API = {
    "check_bytes": "api",
    "check_file": "api",
    "check_paths": "api",
    "check_text": "api",
    "evaluate": "api",
    "Evaluation": "api",
    "Report": "api",
    "Config": "config",
    "Diagnostic": "diagnostics",
}

__all__ = sorted(_API)


def __getattr__(name: str) -> Any:
    module = _API.get(name)
    if module is None:
        raise AttributeError(f"module 'wflint' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
