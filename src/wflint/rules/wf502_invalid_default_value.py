"""A workflow parameter's ``default_value`` does not convert to its type, or converts to
something other than it says.

**What it checks.** At save time the service converts the ``default_value`` of every
``workflow`` parameter to its ``workflow_parameter_type``:

* ``integer``: Python ``int()``, so ``"12"`` → 12, but ``"abc"`` and ``"1.5"`` are refused;
* ``float``: Python ``float()``, so ``"x"`` is refused;
* ``boolean``: a boolean, or a value whose text is ``true``/``false``/``1``/``0`` in any case,
  so ``"yes"`` and ``2`` are refused;
* ``string``, ``json``, ``file_url``, ``credential_id``: never refused.

Refusals are errors. Some values are accepted but become something the author hardly meant,
and draw a warning: an object, list or boolean for a ``string`` parameter (stored as the
Python rendering ``{'a': 1}``, ``True``); a fractional number or a boolean for an ``integer``
(``3.9`` → 3, ``true`` → 1); a boolean for a ``float``; any string for a ``json`` parameter (it
stays a string, even when it holds JSON text); a non-text value for ``file_url`` or
``credential_id`` (passed through as is).

**Why.** The service answers 400 "Invalid workflow parameter. Expected parameter type:
integer. Value: abc." (the value as Python prints it). Parameters are converted in list
order; a repeated key is skipped (WF206 reports it).

**Bad**::

    parameters:
      - {parameter_type: workflow, key: max_pages, workflow_parameter_type: integer, default_value: "ten"}

**Good**::

    parameters:
      - {parameter_type: workflow, key: max_pages, workflow_parameter_type: integer, default_value: 10}
"""

import json
import sys

from ..checks.yaml11 import yaml11_reading

from ..checks.service_checks import coerce_default_value
from .verdicts import d5_parameters, service_verdict

CODE = "WF502"
NAME = "invalid-default-value"
SEVERITY = "error"

TYPES = ("string", "integer", "float", "boolean", "json", "file_url", "credential_id")


def _show(value):
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def check(wf):
    rule = sys.modules[__name__]
    for p in d5_parameters(wf):
        if p.type != "workflow" or "default_value" not in p.data:
            continue
        kind, value = p.data.get("workflow_parameter_type"), p.data.get("default_value")
        if kind not in TYPES or value is None:
            continue  # an unknown type is WF103
        path = p.path + ("default_value",)
        stored, error = coerce_default_value(kind, value)
        if error:
            yield wf.diag(rule, f"default_value {_show(value)} of parameter '{p.key}' cannot be converted to "
                          f"{kind}; the service rejects the save (400)", path, help=_fix(kind),
                          service=service_verdict(400, error, "D", 5, p.index))
            continue
        surprise = _surprise(kind, value, stored)
        if surprise and yaml11_reading(wf.node(path)) is None:  # a YAML 1.1 surprise is WF004's to explain
            yield wf.diag(rule, f"default_value {_show(value)} of {kind} parameter '{p.key}' {surprise}", path,
                          severity="warning", help=_fix(kind))


def _fix(kind):
    return {
        "integer": "write a whole number, e.g. default_value: 10",
        "float": "write a number, e.g. default_value: 2.5",
        "boolean": "write true or false",
        "string": "quote the text you mean, or use workflow_parameter_type: json for structured data",
        "json": "write the object or list itself (not as quoted text)",
    }.get(kind, "write the value as text")


def _surprise(kind, value, stored):
    """Why an accepted value is probably not what was meant, or None."""
    if kind == "string" and isinstance(value, (dict, list, bool)):
        return f"is accepted but stored as the Python text {json.dumps(stored)}"
    if kind == "integer" and (isinstance(value, bool) or (isinstance(value, float) and not value.is_integer())):
        return f"is accepted but stored as {stored}"
    if kind == "float" and isinstance(value, bool):
        return f"is accepted but stored as {stored}"
    if kind == "json" and isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            return "is not JSON: it is stored as a plain string"
        if isinstance(parsed, (dict, list)):
            return "is JSON written as text: the service keeps it as a string, not as the object it holds"
        return "is stored as a string, not as the JSON value it spells"
    if kind in ("file_url", "credential_id") and not isinstance(value, str):
        return "is not text: the service passes it through unchanged, and a run expects text"
    return None
