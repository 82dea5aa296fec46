"""The pydantic validators that attach the service's custom model rules to generated models.

Each validator is a thin adapter: it reads the values pydantic has parsed, calls the rule in
``wflint.checks.service_checks`` and raises ``ValueError(message)``, which pydantic reports as a
``value_error`` with the "Value error, " prefix, exactly like the service. Where a rule sits
decides where the error is located: field validators at the field, model validators at the
object (for blocks: ``[..., "blocks", i, "<tag>"]``).

``VALIDATORS`` maps a block or parameter tag, or an object name, to the validators of that
model.
"""

from __future__ import annotations

from typing import Any

from pydantic import field_validator, model_validator

from ...checks import service_checks
from .scripts import decode_script_path


def _raise(message: str | None) -> None:
    if message:
        raise ValueError(message)


# --------------------------------------------------------------------------- shared


def _check_label(cls: Any, v: str) -> str:
    _raise(service_checks.block_label_error(v))
    return v


def _check_key(cls: Any, v: str) -> str:
    _raise(service_checks.parameter_key_error(v))
    return v


def label_validators() -> dict[str, Any]:
    """For every block model (a fresh descriptor per model)."""
    return {"check_label": field_validator("label")(classmethod(_check_label))}


def key_validators() -> dict[str, Any]:
    """For every parameter model."""
    return {"check_key": field_validator("key")(classmethod(_check_key))}

# --------------------------------------------------------------------------- blocks


def _conditional(self: Any) -> Any:
    _raise(service_checks.conditional_branches_error([b.is_default for b in self.branch_conditions]))
    return self


def _code_raw(cls: Any, data: Any) -> Any:
    # the service looks at the raw input keys before anything else is validated
    if isinstance(data, dict):
        _raise(service_checks.code_block_key_error(data.keys()))
        mapping = data.get("error_code_mapping")
        if mapping is not None:
            _raise(service_checks.code_error_code_mapping_error(mapping))
    return data


def _code_parameters(cls: Any, data: Any) -> Any:
    # refused from 1.0.42 (``RELEASE_CHECKS``); before, the key was dropped
    if isinstance(data, dict) and "parameters" in data:
        _raise(service_checks.code_block_key_error(["parameters"]))
    return data


def _send_email(self: Any) -> Any:
    _raise(service_checks.send_email_transport_error(
        transport=_value(self.transport),
        custom_smtp_host=self.custom_smtp_host,
        custom_smtp_port=self.custom_smtp_port,
        custom_smtp_username=self.custom_smtp_username,
        custom_smtp_password=self.custom_smtp_password,
        sender_given="sender" in self.model_fields_set,
        cc=self.cc,
        bcc=self.bcc,
    ))
    return self


def _terminate_code(cls: Any, v: str | None) -> str | None:
    if v is None:
        return None
    v = service_checks.normalize_terminate_error_code(v)
    _raise(service_checks.terminate_error_code_error(v))
    return v


def _outcome_code(cls: Any, v: Any) -> Any:
    if isinstance(v, str):
        v = v.strip()
        _raise(service_checks.outcome_error_code_error(v))
    return v


def _web_search_schema(cls: Any, v: Any) -> Any:
    _raise(service_checks.web_search_json_schema_error(v))
    return v


def _web_search(self: Any) -> Any:
    _raise(service_checks.web_search_no_match_error(self.no_match_error_code, self.prompt))
    return self


def _http_request(self: Any) -> Any:
    # before 1.0.45 the model has no secret_response_paths (nor this validator's conflict)
    _raise(service_checks.http_request_conflict_error(self.save_response_as_file,
                                                      getattr(self, "secret_response_paths", None)))
    return self


# --------------------------------------------------------------------------- nested objects


def _branch(self: Any) -> Any:
    _raise(service_checks.branch_condition_error(self.criteria is not None, bool(self.is_default)))
    return self


def _retry_on(cls: Any, v: list[Any]) -> list[Any]:
    _raise(service_checks.retry_on_duplicate_error([_value(r.status) for r in v]))
    return v


def _error_codes(cls: Any, v: list[str] | None) -> list[str] | None:
    return service_checks.normalize_error_codes(v)


def _timezone(self: Any) -> Any:
    # a model validator, as in the service: the error is located at browser_settings
    if self.timezone_id is not None:
        _raise(service_checks.timezone_error(self.timezone_id))
    return self


def _geo_target(self: Any) -> Any:
    # normalised as the service stores it; an unsupported country fails the GeoTarget branch,
    # and the proxy_location union then keeps the object as a plain dict (stored as null)
    country = self.country.upper()
    _raise(service_checks.geo_target_country_error(country))
    self.country = country
    if self.subdivision and self.subdivision.upper().startswith(country + "-"):
        self.subdivision = self.subdivision[len(country) + 1:]
    return self


# --------------------------------------------------------------------------- request, definition


def _browser_type(cls: Any, v: str | None) -> str | None:
    if v is not None:
        _raise(service_checks.browser_type_error(v))
    return v


def _max_elapsed_raw(cls: Any, v: Any) -> Any:
    _raise(service_checks.max_elapsed_time_minutes_bool_error(v))
    return v


def _definition(self: Any) -> Any:
    labels = [b.label for b in self.blocks]
    kinds = [(_value(b.block_type), b.next_block_label) for b in self.blocks]
    version, err = service_checks.definition_error(labels, self.finally_block_label, self.version, kinds)
    _raise(err)
    self.version = version
    return self


def _definition_labels(self: Any) -> Any:
    # releases before 1.0.44: the label checks only; version is an int given or 1
    labels = [b.label for b in self.blocks]
    _raise(service_checks.duplicate_top_level_labels_error(labels)
           or service_checks.finally_label_error(self.finally_block_label, labels))
    return self


def _script_path(cls: Any, v: str) -> str:
    return decode_script_path(v)  # raises ValueError with the service's message


def _value(v: Any) -> Any:
    """An enum member's value, or the value itself."""
    return getattr(v, "value", v)


VALIDATORS: dict[str, dict[str, Any]] = {
    "conditional": {"check_branches": model_validator(mode="after")(_conditional)},
    "code": {"check_raw_keys": model_validator(mode="before")(classmethod(_code_raw)),
             "check_parameters_key": model_validator(mode="before")(classmethod(_code_parameters))},
    "send_email": {"check_transport": model_validator(mode="after")(_send_email)},
    "terminate": {"check_error_code": field_validator("error_code")(classmethod(_terminate_code))},
    "web_search": {
        "trim_codes": field_validator("no_results_error_code", "no_match_error_code", mode="before")(
            classmethod(_outcome_code)),
        "check_schema": field_validator("json_schema")(classmethod(_web_search_schema)),
        "check_no_match": model_validator(mode="after")(_web_search),
    },
    "http_request": {"check_conflict": model_validator(mode="after")(_http_request)},
    "BranchCondition": {"check_branch": model_validator(mode="after")(_branch)},
    "RetryPolicy": {"check_retry_on": field_validator("retry_on")(classmethod(_retry_on))},
    "RetryRule": {"dedupe_codes": field_validator("error_codes")(classmethod(_error_codes))},
    "BrowserSettings": {"check_timezone": model_validator(mode="after")(_timezone)},
    "GeoTarget": {"normalise": model_validator(mode="after")(_geo_target)},
    "WorkflowRequest": {
        "check_browser_type": field_validator("browser_type")(classmethod(_browser_type)),
        "check_max_elapsed_bool": field_validator("max_elapsed_time_minutes", mode="before")(
            classmethod(_max_elapsed_raw)),
    },
    "WorkflowDefinition": {"check_definition": model_validator(mode="after")(_definition),
                           "check_labels": model_validator(mode="after")(_definition_labels)},
    "ScriptFile": {"decode_path": field_validator("path")(classmethod(_script_path))},
}


#: validators that only some releases run, by the save-time check name in ``model.releases.CHECKS``
RELEASE_CHECKS: dict[tuple[str, str], str] = {
    ("send_email", "check_transport"): "send_email_transport",
    ("code", "check_raw_keys"): "code_block_forbidden_keys",
    ("BrowserSettings", "check_timezone"): "browser_settings_timezone",
    ("code", "check_parameters_key"): "code_parameters_key",
    ("WorkflowDefinition", "check_definition"): "version_inference",
}
#: validators that stand in for a check in the releases before it (``RELEASE_CHECKS``' reverse)
EARLIER_CHECKS: dict[tuple[str, str], str] = {
    ("WorkflowDefinition", "check_labels"): "version_inference",
}


def for_release(rel: Any, owner: str, field_names: set[str]) -> dict[str, Any]:
    """The validators of ``owner`` that release ``rel`` runs, on the fields it has."""
    out = {}
    for name, v in VALIDATORS.get(owner, {}).items():
        check = RELEASE_CHECKS.get((owner, name))
        if check is not None and not rel.has_check(check):
            continue
        before = EARLIER_CHECKS.get((owner, name))
        if before is not None and rel.has_check(before):
            continue
        fields = getattr(getattr(v, "decorator_info", None), "fields", ())
        if fields and not set(fields) <= field_names:
            continue  # a field this release does not have
        out[name] = v
    return out
