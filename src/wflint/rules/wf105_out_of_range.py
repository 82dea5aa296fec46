"""A number or string is outside its bounds.

**What it checks.** The bounds the request model enforces: ``max_elapsed_time_minutes``
1..480, ``code_version`` 1..2, ``custom_smtp_port`` 1..65535, ``web_search.num_results``
1..100, ``web_search.query`` and ``terminate.reason`` not empty, retry-policy bounds,
GeoTarget lengths, at least one ``retry_on`` rule, and a ``code`` block's
``error_code_mapping`` (at most 64 trimmed, non-empty entries, keys up to 128 and descriptions
up to 2000 characters, no control characters, 32768 UTF-8 bytes in all). ``wait_sec`` (1 to
1800) is checked later by the service and reported here too.

**Why.** The service answers 422 (``greater_than_equal``, ``less_than_equal``,
``string_too_short``...).

**Bad**::

    max_elapsed_time_minutes: 600

**Good**::

    max_elapsed_time_minutes: 480
"""

import sys

from .model_findings import yield_findings

CODE = "WF105"
NAME = "out-of-range"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    yield from yield_findings(wf, sys.modules[__name__])
    yield from _code_error_mapping(wf)
    if not wf.schema_only:  # wait_sec is a service check, not part of the request model
        yield from _wait_sec(wf)


def _code_error_mapping(wf):
    """A code block's error_code_mapping has limits no other block's has (§5.6.5)."""
    from ..checks.service_checks import code_error_code_mapping_error
    from .verdicts import model_verdict

    rule = sys.modules[__name__]
    for b in wf.blocks_of("code"):
        mapping = b.data.get("error_code_mapping")
        if not isinstance(mapping, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in mapping.items()):
            continue  # null, or a type error (WF102)
        error = code_error_code_mapping_error(mapping)
        if error:
            path = b.path + ("error_code_mapping",)
            yield wf.diag(rule, f"error_code_mapping of code block '{b.label}' breaks the service's limits: {error}", path,
                          help="keep at most 64 trimmed entries: short codes, one-line descriptions",
                          service=model_verdict(wf, path))


def _wait_sec(wf):
    from .verdicts import e_order, service_verdict
    from ..model.lax import lax_int

    rule = sys.modules[__name__]
    for b in wf.blocks_of("wait"):
        n = lax_int(b.data.get("wait_sec", 0))
        if n is None:
            continue  # a type error, reported by WF102
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
        if not wf.release.has_check("wait_sec_422"):
            # older releases fail the save with a 500 whose text names the workflow id
            yield wf.diag(rule, msg, where, service=service_verdict(500, None, "E", e_order(wf, b)))
            continue
        yield wf.diag(rule, msg, where, service=service_verdict(422, detail, "E", e_order(wf, b)))
