"""Run parameters as ``setup_workflow_run`` checks and converts them, before the run exists.

A missing required value or a value its type cannot take is a 400 (``MissingValueForParameter``,
``InvalidWorkflowParameter``); otherwise each workflow parameter gets its converted value.
"""

from __future__ import annotations

import json
from typing import Any, Collection

from . import secrets, semantics
from .secrets import Vault


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


def _secret_in_parameters(param: dict[str, Any], value: Any) -> bool:
    """A run parameter that holds a secret's value: any value of a non-workflow secret-bearing
    parameter, or a credential's fields (a mapping) for a ``credential_id`` workflow parameter
    (whose run parameter is otherwise the credential's id)."""
    kind = secrets.secret_kind(param)
    if kind is None:
        return False
    return param.get("parameter_type", "workflow") != "workflow" or isinstance(value, dict)


def resolve(definition: dict[str, Any], given: dict[str, Any], wpid: str, secret_values: dict[str, Any] | None = None,
            vault: Vault | None = None, missing_secrets: list[str] | None = None,
            known_credentials: Collection[str] = ()) -> dict[str, Any]:
    """The parameter values a run starts with, or :class:`RefusedRun` with the 400's detail.

    A secret-bearing parameter with a value in ``secret_values`` (the case's ``secrets:``) renders
    as the engine's placeholders, its values registered in ``vault``; one without a value that a
    block refers to is named in ``missing_secrets`` and renders as a stand-in."""
    values: dict[str, Any] = {}
    missing: list[str] = []
    declared = [p for p in definition.get("parameters") or [] if isinstance(p, dict)]
    # a secret's value given among the run parameters counts as given (the service would ignore
    # it: no run parameter reaches an AWS secret or a credential); secrets: wins
    secret_values = {**{p["key"]: given[p["key"]] for p in declared if p.get("key") in given and _secret_in_parameters(p, given[p["key"]])},
                     **(secret_values or {})}
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
    # offline no credential exists but those named in ``known_credentials`` (the mock's
    # --credential ids), so the engine's 400 answers every other bound id; a credential the case
    # gives under secrets: stands for one that exists in the organization
    bound = [v for p, v in chosen if p.get("workflow_parameter_type") == "credential_id" and p.get("key") not in secret_values]
    _refuse_credentials([i for i in bound if i not in known_credentials])
    bound = _bound_credential_ids([p for p in declared if p.get("key") not in secret_values], given,
                                  {p.get("key") for p in declared})
    _refuse_credentials([i for i in bound if i not in known_credentials])
    for param, value in chosen:
        values[param["key"]] = convert(param.get("workflow_parameter_type", "string"), value)
    for param in declared:
        kind = param.get("parameter_type")
        key = param.get("key")
        if not key or kind in ("context", "output"):
            continue
        if secrets.secret_kind(param) is not None:
            if key in secret_values and vault is not None:
                values[key] = vault.register(param, secret_values[key])
                continue
            if missing_secrets is not None and secrets.needed(definition, key):
                missing_secrets.append(key)
        if key in values:
            continue
        if kind == "workflow":
            values.setdefault(key, None)
        else:  # a secret the case does not give: a stand-in that names it
            values[key] = {"context": param.get("description") or "", "simulated_secret": key}
    return values
