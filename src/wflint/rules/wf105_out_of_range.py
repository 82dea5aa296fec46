"""A number or string is outside its bounds.

**What it checks.** The bounds the request model enforces: ``max_elapsed_time_minutes``
1..480, ``code_version`` 1..2, ``custom_smtp_port`` 1..65535, ``web_search.num_results``
1..100, ``web_search.query`` and ``terminate.reason`` not empty, retry-policy bounds,
GeoTarget lengths, at least one ``retry_on`` rule. (``wait_sec`` is checked later by the
service and reported by WF105 too, from its own rule.)

**Why.** The service answers 422 (``greater_than_equal``, ``less_than_equal``,
``string_too_short``...).

**Bad**::

    max_elapsed_time_minutes: 600

**Good**::

    max_elapsed_time_minutes: 480
"""

import sys

from ._common import yield_findings

CODE = "WF105"
NAME = "out-of-range"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    yield from yield_findings(wf, sys.modules[__name__])
    if not wf.schema_only:  # wait_sec is a service check, not part of the request model
        yield from _wait_sec(wf)


def _wait_sec(wf):
    from ._common import e_order, service_verdict

    rule = sys.modules[__name__]
    for b in wf.blocks_of("wait"):
        raw = b.data.get("wait_sec", 0)
        try:
            n = int(float(raw)) if not isinstance(raw, bool) else int(raw)
        except (TypeError, ValueError):
            continue  # a type error, reported by WF102
        if isinstance(raw, float) and not raw.is_integer():
            continue
        if 1 <= n <= 1800:
            continue
        label = b.label or ""
        detail = f"Invalid wait time {n} for wait block '{label}'. It must be a whole number of seconds between 1 and 1800."
        where = b.path + ("wait_sec",) if "wait_sec" in b.data else b.path
        msg = (
            f"wait block '{label}' has no wait_sec, which means 0 seconds; the service needs 1 to 1800"
            if "wait_sec" not in b.data
            else f"wait_sec must be between 1 and 1800 seconds, got {n}"
        )
        yield wf.diag(rule, msg, where, service=service_verdict(422, detail, "E", e_order(wf, b)))
