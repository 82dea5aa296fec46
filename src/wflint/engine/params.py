"""Run parameters as ``setup_workflow_run`` checks and converts them, before the run exists.

A missing required value or a value its type cannot take is a 400 (``MissingValueForParameter``,
``InvalidWorkflowParameter``); otherwise each workflow parameter gets its converted value.
"""

from __future__ import annotations

import json
from typing import Any

from . import semantics


class RefusedRun(Exception):
    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(detail)


def _missing(kind: str, value: Any) -> bool:
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


def convert(kind: str, value: Any) -> Any:
    """``WorkflowParameterType.convert_value`` (a dict or list arrives JSON-encoded)."""
    if value is None:
        return None
    stored = json.dumps(value) if isinstance(value, (dict, list)) else value
    try:
        if kind == "string":
            return str(stored)
        if kind == "integer":
            return int(stored)
        if kind == "float":
            return float(stored)
        if kind == "boolean":
            if isinstance(stored, bool):
                return stored
            word = str(stored).lower()
            if word not in semantics.BOOLEAN_WORDS:
                raise ValueError(word)
            return semantics.BOOLEAN_WORDS[word]
        if kind == "json":
            return stored if isinstance(stored, (dict, list)) else json.loads(stored)
    except Exception as exc:
        raise RefusedRun(semantics.INVALID_PARAMETER.format(type=kind, value=str(stored))) from exc
    return stored


def _string_credential(kind: str, value: Any) -> None:
    if kind == "credential_id" and not isinstance(value, str):
        raise RefusedRun(semantics.INVALID_CREDENTIAL.format(ids=f"<non-string value of type {type(value).__name__}>"))


def _refuse_credentials(ids: list[Any]) -> None:
    """``_validate_credential_ids``: a run that binds credentials needs each to exist, and offline
    none does (the simulator, like the engine run here, has no credential store)."""
    unique = [str(i) for i in dict.fromkeys(ids)]
    if not unique:
        return
    text = ", ".join(unique)
    if any(word in text.lower() for word in semantics.SENSITIVE_CREDENTIAL_WORDS):
        text = "<redacted - contains credential data>"
    elif len(text) > 200:
        text = "<redacted - value too long>"
    raise RefusedRun(semantics.INVALID_CREDENTIAL.format(ids=text))


def _bound_credential_ids(declared: list[dict[str, Any]], given: dict[str, Any], keys: set[Any]) -> list[Any]:
    """The ids ``credential`` parameters bind: a per-run override (for one with a rotation pool)
    or the literal ``credential_id`` the definition fixes (``_definition_fixed_credential_ids``)."""
    ids: list[Any] = []
    for param in declared:
        if param.get("parameter_type") != "credential":
            continue
        pool = param.get("credential_ids") or param.get("fallback_credential_ids")
        override = given.get(param.get("key")) if pool else None
        if override not in (None, ""):
            if not isinstance(override, str):
                raise RefusedRun(semantics.INVALID_CREDENTIAL.format(
                    ids=f"<non-string value of type {type(override).__name__}>"))
            ids.append(override)
        elif pool:  # the rotation pool is checked whole: primary ids, then the fallbacks
            ids.extend([*(param.get("credential_ids") or []), *(param.get("fallback_credential_ids") or [])])
        elif not param.get("credential_ids") and param.get("credential_id") not in keys and param.get("credential_id"):
            ids.append(param["credential_id"])
    return ids


def resolve(definition: dict[str, Any], given: dict[str, Any], wpid: str) -> dict[str, Any]:
    """The parameter values a run starts with, or :class:`RefusedRun` with the 400's detail."""
    values: dict[str, Any] = {}
    missing: list[str] = []
    declared = [p for p in definition.get("parameters") or [] if isinstance(p, dict)]
    workflow_params = [p for p in declared if p.get("parameter_type", "workflow") == "workflow"]
    chosen: list[tuple[dict[str, Any], Any]] = []
    for param in workflow_params:
        key, kind = param.get("key"), param.get("workflow_parameter_type", "string")
        default = param.get("default_value")
        if key in given:
            value = given[key]
            if value is None and default is not None:
                value = default
            if _missing(kind, value):
                if kind != "credential_id":
                    missing.append(key)
                continue
            _string_credential(kind, value)
            chosen.append((param, value))
        elif default is not None:
            _string_credential(kind, default)
            chosen.append((param, default))
        elif kind != "credential_id":
            missing.append(key)
    if missing:
        raise RefusedRun(semantics.MISSING_PARAMETER.format(keys=", ".join(sorted(missing)), wpid=wpid))
    _refuse_credentials([v for p, v in chosen if p.get("workflow_parameter_type") == "credential_id"])
    _refuse_credentials(_bound_credential_ids(declared, given, {p.get("key") for p in declared}))
    for param, value in chosen:
        values[param["key"]] = convert(param.get("workflow_parameter_type", "string"), value)
    for param in declared:
        kind = param.get("parameter_type")
        key = param.get("key")
        if kind == "context" or kind == "output" or not key or key in values:
            continue
        if kind == "workflow":
            values.setdefault(key, None)
        else:  # secrets and credentials: the engine resolves them to placeholders for templates
            values[key] = {"context": param.get("description") or "", "simulated_secret": key}
    return values
