"""A run's parameters, checked and resolved as the service does before it writes the run.

The service (1.0.56, ``_refuse_unusable_request_parameters``) walks the workflow's ``workflow``
parameters in definition order: a value sent under the key is used (an explicit ``null``
falls back to the default), else the default, else the key is missing. Every missing key is
named in one 400, sorted and comma-joined; then each value must convert to its declared type
(dicts and lists are JSON-encoded first), else a 400 names the type and the value.
Credential-id parameters are left alone: the mock has only ``--credential`` ids, and a run
without one is allowed by the service too.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from .errors import Reply, detail


def missing(key: str, wpid: str) -> Reply:
    return detail(400, f"Missing value for parameter {key} in workflow {wpid}")


def invalid(kind: str, value: Any) -> Reply:
    return detail(400, f"Invalid workflow parameter. Expected parameter type: {kind}. Value: {value}.")


def _blank(kind: str, value: Any) -> bool:
    """The service's ``_is_missing_required_value``: what counts as no value for a type."""
    if value is None:
        return True
    if kind == "string":
        return False
    if kind in ("json", "boolean", "integer", "float", "credential_id"):
        return isinstance(value, str) and value.strip() == ""
    if kind == "file_url":
        if isinstance(value, str):
            return value.strip() == ""
        if isinstance(value, dict):
            return not value or ("s3uri" in value and not value.get("s3uri"))
    return False


def _text(value: Any) -> str:
    """``str(value)`` as Python writes it (the service quotes the value that way)."""
    return str(value)


def _converts(kind: str, value: Any) -> bool:
    """Whether the service's ``WorkflowParameterType.convert_value`` accepts ``value``."""
    try:
        if kind == "integer":
            int(value)
        elif kind == "float":
            float(value)
        elif kind == "boolean":
            return isinstance(value, bool) or str(value).lower() in ("true", "false", "1", "0")
        elif kind == "json":
            if not isinstance(value, (dict, list)):
                json.loads(value)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return False
    return True


def converted(kind: str, value: Any) -> Any:
    """The value as the run reports it: stored as text, read back through its type."""
    try:
        if kind == "integer":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "boolean":
            return value if isinstance(value, bool) else str(value).lower() in ("true", "1")
        if kind == "json":
            return value if isinstance(value, (dict, list)) else json.loads(value)
        if kind == "string":
            return value if isinstance(value, str) else str(value)
    except (TypeError, ValueError, OverflowError, RecursionError):
        return value
    return value


def resolve(definition: Mapping[str, Any], data: Mapping[str, Any] | None, wpid: str) -> dict[str, Any]:
    """The run's parameter values by key (what the run stores and the engine gets), or a 400."""
    values: dict[str, Any] = {}
    absent: list[str] = []
    params = [p for p in definition.get("parameters") or [] if isinstance(p, dict)
              and p.get("parameter_type") == "workflow"]
    for p in params:
        key, kind, default = p.get("key"), p.get("workflow_parameter_type"), p.get("default_value")
        if data and key in data:
            value = data[key]
            if value is None and default is not None:
                value = default
            if _blank(kind, value):
                if kind != "credential_id":
                    absent.append(key)
                continue
            values[key] = value
        elif default is not None:
            values[key] = default
        elif kind != "credential_id":
            absent.append(key)
    if absent:
        raise missing(", ".join(sorted(absent)), wpid)
    for p in params:
        key, kind = p.get("key"), p.get("workflow_parameter_type")
        if key not in values:
            continue
        value = values[key]
        sent = json.dumps(value) if isinstance(value, (dict, list)) else value
        if not _converts(kind, sent):
            raise invalid(kind, _text(sent))
        values[key] = converted(kind, sent)
    return values
