"""Run values as the service shows them in JSON.

A code block may return ``float('nan')`` or ``float('inf')``. The engine keeps them as they are
while the run goes on (a template renders ``nan``), but the service writes its replies with
pydantic, which shows a non-finite float as ``null`` (release 1.0.56: ``{"x": NaN}`` recorded by
a code block reads ``{"x": null}`` in ``GET /v1/runs/{id}``). ``finite`` makes that same change,
so what wflint prints or stores is always valid JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with every NaN, Infinity and -Infinity (at any depth) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, **options: Any) -> str:
    """``json.dumps`` of :func:`finite` ``(value)``: valid JSON whatever the run produced."""
    return json.dumps(finite(value), allow_nan=False, **options)


def loads(text: str) -> Any:
    """``json.loads`` that reads a ``NaN``/``Infinity`` written before :func:`dumps` existed as null."""
    return json.loads(text, parse_constant=lambda _constant: None)
