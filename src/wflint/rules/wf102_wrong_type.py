"""A value has the wrong type.

**What it checks.** Types as the service's lax reading accepts them: ``"5"`` and ``5.0``
are integers, ``"yes"``/``"off"``/``1`` are booleans, but a number is never a string and
``5.5`` is not an integer. ``web_search.num_results`` and the retry-policy numbers are strict.

**Why.** The service answers 422 ("Input should be a valid string", "... a valid integer").
A YAML 1.1 reading is the usual culprit: ``title: no`` is the boolean false, and a string
field refuses it; quote it.

**Bad**::

    - block_type: wait
      label: pause
      wait_sec: 2.5

**Good**::

    - block_type: wait
      label: pause
      wait_sec: 3
"""

import sys

from ..checks.service_checks import max_elapsed_time_minutes_bool_error
from .model_findings import yield_findings
from ..model.release_view import per_model
from .verdicts import model_verdict

CODE = "WF102"
NAME = "wrong-type"
SEVERITY = "error"
STAGE = "model"


def check(wf):
    rule = sys.modules[__name__]
    yield from yield_findings(wf, rule)
    minutes = wf.request.get("max_elapsed_time_minutes")
    if max_elapsed_time_minutes_bool_error(minutes):
        # integers are lax, but this field refuses a boolean explicitly
        yield wf.diag(rule, f"'max_elapsed_time_minutes' must be a number of minutes, got the boolean {str(minutes).lower()}",
                      ("max_elapsed_time_minutes",), help="write a number of minutes from 1 to 480, or remove it",
                      service=model_verdict(wf, ("max_elapsed_time_minutes",)))
    if wf.mode == "yaml":
        yield from _non_string_keys(wf, rule)


def _non_string_keys(wf, rule):
    """YAML keys may be booleans or numbers (``on:``, ``1:``); the service's object fields take
    string keys only and refuse the rest (422)."""
    from ..workflow.view import modeled_objects

    for path, data, obj in modeled_objects(wf):
        for name in _mapping_fields(wf.release, obj):
            value = data.get(name)
            if not isinstance(value, dict):
                continue
            bad = next((k for k in value if not isinstance(k, str)), None)
            if bad is None:
                continue
            shown = str(bad).lower() if isinstance(bad, bool) else repr(bad)
            yield wf.diag(rule, f"key `{shown}` in '{name}' is not a string (YAML 1.1 read it as "
                          f"{type(bad).__name__}); the service accepts string keys only",
                          path + (name,), help="quote the key, so that YAML reads it as text",
                          service=model_verdict(wf, path + (name,)))


@per_model
def _mapping_fields(release, obj) -> tuple[str, ...]:
    """The fields of ``obj`` that may hold a mapping with keys of the author's choosing."""
    from ..model import types as t

    fields = release.block_fields(obj.tag) if release.is_block(obj) else obj.fields
    return tuple(f.name for f in fields if isinstance(f.type, (t.FreeObject, t.StrMap, t.Union)))
