"""The service's custom model rules (the "M-rules" of reference §6.2), as pure functions.

The service runs these inside request-model validation. The mock server's pydantic
validators call them, and so do the linter's rules, so each rule exists exactly once.

Conventions:

* every function takes plain values (what was parsed from JSON or YAML) and returns the
  service's exact message, **without** pydantic's ``"Value error, "`` prefix, or ``None``
  when the value passes;
* functions named ``normalize_*`` return the value the service stores;
* nothing here imports the rest of wflint or any server library, so the module stays cheap
  to import from anywhere.

Where the service's wording embeds the offending value, the message is built the same way
(literal quotes or Python ``repr``, as the reference says).
"""

from __future__ import annotations

import functools
import json
from typing import Any, Iterable, Sequence

from ..core.patterns import lazy

# --------------------------------------------------------------------------- identifiers (§5.2, §4.1)

_IDENTIFIER_RULES = (
    "must be valid Python identifiers (only letters, digits, and underscores; cannot start with "
    "a digit). Characters like '/', '-', '.', etc. are not allowed because they conflict with "
    "Jinja2 template syntax."
)


def block_label_error(label: str) -> str | None:
    """Block ``label`` rule (§5.2): not blank, then a Python identifier (keywords and
    Unicode letters pass, as ``str.isidentifier`` says)."""
    if not label.strip():
        return "Block labels cannot be empty."
    if not label.isidentifier():
        return f"Block label '{label}' is not a valid label. Block labels {_IDENTIFIER_RULES}"
    return None


def parameter_key_error(key: str) -> str | None:
    """Parameter ``key`` rule (§4.1): no whitespace, then a Python identifier."""
    if any(ch in key for ch in " \t\n\r"):
        return "Key cannot contain whitespace characters"
    if not key.isidentifier():
        return f"Key '{key}' is not a valid parameter name. Parameter keys {_IDENTIFIER_RULES}"
    return None


# --------------------------------------------------------------------------- branches (§5.4)


def branch_condition_error(has_criteria: bool, is_default: bool) -> str | None:
    """One branch of a ``conditional``: exactly one of criteria / default."""
    if not has_criteria and not is_default:
        return "Branches without criteria must be marked as default."
    if has_criteria and is_default:
        return "Default branches may not define criteria."
    return None


def conditional_branches_error(default_flags: Sequence[bool]) -> str | None:
    """A ``conditional`` block's branch list: at least one, at most one default."""
    if not default_flags:
        return "Conditional blocks require at least one branch."
    if sum(1 for d in default_flags if d) > 1:
        return "Only one default branch is permitted per conditional block."
    return None


# --------------------------------------------------------------------------- error codes (§5.6.5, §5.6.21)

_CODE_KEY_SHAPE = "error code keys must be trimmed, non-empty strings of at most 128 characters"
_CODE_KEY_CONTROL = "error code keys must not contain Unicode category-C characters"
_CODE_DESC_SHAPE = "error code descriptions must be trimmed, non-empty strings of at most 2000 characters"
_CODE_DESC_CONTROL = "error code descriptions must not contain Unicode category-C characters"
_LITERAL_CODE = lazy(r"[A-Za-z0-9_.:\-]+")
_TEMPLATE_MARKERS = ("{{", "{%", "{#")


def has_category_c(text: str) -> bool:
    """Controls, format characters, surrogates, private use and unassigned code points."""
    from unicodedata import category  # here: only error codes are asked, and most files have none

    return any(category(ch).startswith("C") for ch in text)


def _is_trimmed_nonempty(value: Any, max_len: int) -> bool:
    return isinstance(value, str) and bool(value) and value == value.strip() and len(value) <= max_len


def code_block_key_error(input_keys: Iterable[str]) -> str | None:
    """The two keys a ``code`` block refuses outright (checked on the raw input first)."""
    keys = set(input_keys)
    if "error_code" in keys:
        return "Code blocks do not accept 'error_code'; use 'error_code_mapping'"
    if "parameters" in keys:
        return (
            "Code blocks do not accept a 'parameters' field; use 'parameter_keys' (a list of "
            "workflow parameter names) to inject parameters into the code block."
        )
    return None


def code_error_code_mapping_error(mapping: Any) -> str | None:
    """The strict limits on a ``code`` block's ``error_code_mapping`` (raw value, not null).

    Entries are checked in order, key before value, and the first failure is reported; the
    byte total is checked last.
    """
    if not isinstance(mapping, dict):
        return "error_code_mapping must be a dictionary"
    if len(mapping) > 64:
        return "error_code_mapping must contain at most 64 entries"
    total = 0
    for key, value in mapping.items():
        if not _is_trimmed_nonempty(key, 128):
            return _CODE_KEY_SHAPE
        if has_category_c(key):
            return _CODE_KEY_CONTROL
        if not _is_trimmed_nonempty(value, 2000):
            return _CODE_DESC_SHAPE
        if has_category_c(value):
            return _CODE_DESC_CONTROL
        total += len(key.encode("utf-8")) + len(value.encode("utf-8"))
    if total > 32768:
        return "error_code_mapping keys and values must total at most 32768 UTF-8 bytes"
    return None


def terminate_error_code_error(code: str) -> str | None:
    """``terminate.error_code``, already trimmed (see :func:`normalize_terminate_error_code`).

    A template (it contains ``{{``, ``{%`` or ``{#``) is only checked for category-C
    characters; a literal code must also be short and use a small character set.
    """
    if any(marker in code for marker in _TEMPLATE_MARKERS):
        return _CODE_KEY_CONTROL if has_category_c(code) else None
    if not code or len(code) > 128:
        return _CODE_KEY_SHAPE
    if has_category_c(code):
        return _CODE_KEY_CONTROL
    if not _LITERAL_CODE.fullmatch(code):
        return "literal error codes may contain only ASCII letters, digits, underscores, periods, colons, and hyphens"
    return None


def normalize_terminate_error_code(code: str) -> str:
    return code.strip()


# --------------------------------------------------------------------------- send_email (§5.6.10)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def send_email_transport_error(
    *,
    transport: str | None,
    custom_smtp_host: str | None,
    custom_smtp_port: int | None,
    custom_smtp_username: str | None,
    custom_smtp_password: str | None,
    sender_given: bool,
    cc: Sequence[str],
    bcc: Sequence[str],
) -> str | None:
    """The three transport rules, in the service's order. ``sender_given`` says whether the
    key ``sender`` was present in the input (its value may be empty)."""
    if transport == "gmail":
        if custom_smtp_port is not None or not all(
            _blank(v) for v in (custom_smtp_host, custom_smtp_username, custom_smtp_password)
        ):
            return "custom SMTP settings cannot be combined with the gmail transport"
        return None
    if not sender_given:
        return "sender is required unless the transport is gmail"
    if any(not _blank(entry) for entry in [*cc, *bcc]):
        return "cc and bcc are only supported with the gmail transport"
    return None


# --------------------------------------------------------------------------- web_search (§5.6.26)


def outcome_error_code_error(code: str) -> str | None:
    """``no_results_error_code`` / ``no_match_error_code`` after trimming."""
    return "Outcome error codes must not be blank." if not code.strip() else None


def web_search_no_match_error(no_match_error_code: str | None, prompt: str | None) -> str | None:
    if no_match_error_code is not None and _blank(prompt):
        return "No Match Error Code requires a Prompt."
    return None


def _contains_template(value: Any) -> bool:
    if isinstance(value, str):
        return "{{" in value or "{%" in value
    if isinstance(value, dict):
        return any(_contains_template(k) or _contains_template(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains_template(v) for v in value)
    return False


def web_search_json_schema_error(schema: Any) -> str | None:
    """A ``web_search.json_schema`` without templates must be a Draft 2020-12 JSON Schema."""
    if schema is None or _contains_template(schema):
        return None
    try:
        key = json.dumps(schema)  # key order kept: it decides which error is reported first
    except (TypeError, ValueError):  # not JSON data (YAML oddities): check it uncached
        return _json_schema_error(schema)
    return _json_schema_error_cached(key)


@functools.lru_cache(maxsize=256)
def _json_schema_error_cached(key: str) -> str | None:
    # meta-validation costs milliseconds and the same schema recurs across blocks and files
    return _json_schema_error(json.loads(key))


def _json_schema_error(schema: Any) -> str | None:
    from jsonschema import Draft202012Validator  # imported lazily: only this rule needs it
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return f"The Data Schema is not a valid JSON Schema: {exc.message}."
    return None


# --------------------------------------------------------------------------- http_request (§5.6.25)


def http_request_conflict_error(save_response_as_file: bool, secret_response_paths: Sequence[str] | None) -> str | None:
    if save_response_as_file and secret_response_paths:
        return "secret_response_paths cannot be combined with save_response_as_file"
    return None


# --------------------------------------------------------------------------- retry policy (§3.2)


def retry_on_duplicate_error(statuses: Sequence[str]) -> str | None:
    if len(set(statuses)) != len(statuses):
        return "retry_on must contain each status at most once"
    return None


def normalize_error_codes(codes: Sequence[str] | None) -> list[str] | None:
    """Duplicates are removed silently, first occurrence kept."""
    return None if codes is None else list(dict.fromkeys(codes))


# --------------------------------------------------------------------------- top-level fields (§2.2, §3.3)

BROWSER_TYPES = ("msedge", "chrome", "stealth-chromium")


def timezone_error(timezone_id: str) -> str | None:
    """``browser_settings.timezone_id`` must name an IANA zone; offsets are refused."""
    from zoneinfo import ZoneInfo  # stdlib; imported lazily to keep module import cheap

    try:
        ZoneInfo(timezone_id)
        ok = bool(timezone_id) and not timezone_id.startswith(("+", "-"))
    except Exception:  # ValueError, ZoneInfoNotFoundError, IsADirectoryError ...
        ok = False
    if ok:
        return None
    return (
        f"timezone_id {timezone_id!r} is not an IANA timezone name. Use a name such as "
        "'America/New_York' or 'Africa/Kampala'; UTC offsets are not accepted."
    )


def browser_type_error(browser_type: str) -> str | None:
    if browser_type in BROWSER_TYPES:
        return None
    return f"Invalid browser_type '{browser_type}'; must be one of: {', '.join(BROWSER_TYPES)}"


def max_elapsed_time_minutes_bool_error(value: Any) -> str | None:
    """Checked on the raw value, before integer coercion would turn ``true`` into 1."""
    if isinstance(value, bool):
        return "max_elapsed_time_minutes must be an integer, not a boolean"
    return None


# --------------------------------------------------------------------------- definition level (§3.4)


def duplicate_top_level_labels_error(labels: Sequence[str]) -> str | None:
    seen: set[str] = set()
    dups = {label for label in labels if label in seen or seen.add(label)}
    if dups:
        return "Block labels must be unique within a workflow. Found duplicate label(s): " + ", ".join(sorted(dups))
    return None


def finally_label_error(finally_block_label: str | None, top_level_labels: Sequence[str]) -> str | None:
    if not finally_block_label or finally_block_label in top_level_labels:
        return None
    available = ", ".join(top_level_labels) if top_level_labels else "(none)"
    return (
        f"finally_block_label '{finally_block_label}' does not reference a valid block. "
        f"Available labels: {available}"
    )


def uses_v2_constructs(top_level_blocks: Iterable[tuple[str, str | None]]) -> bool:
    """``(block_type, next_block_label)`` of each top-level block; loop bodies don't count."""
    return any(kind == "conditional" or nxt is not None for kind, nxt in top_level_blocks)


def infer_definition_version(
    version: int | None, top_level_blocks: Iterable[tuple[str, str | None]]
) -> tuple[int, str | None]:
    """The stored ``version`` and the version-consistency error, if any."""
    v2 = uses_v2_constructs(top_level_blocks)
    if version is None:
        return (2 if v2 else 1), None
    if version < 2 and v2:
        return version, (
            "workflow_definition.version must be 2 or greater when using conditional blocks "
            "or explicit next_block_label routing."
        )
    return version, None


def definition_error(
    top_level_labels: Sequence[str],
    finally_block_label: str | None,
    version: int | None,
    top_level_blocks: Sequence[tuple[str, str | None]],
) -> tuple[int | None, str | None]:
    """The three §3.4 checks in the service's order; returns (stored version, first error)."""
    err = duplicate_top_level_labels_error(top_level_labels) or finally_label_error(
        finally_block_label, top_level_labels
    )
    if err:
        return None, err
    return infer_definition_version(version, top_level_blocks)


# --------------------------------------------------------------------------- default values (§4.3)


def _python_text(value: Any) -> str:
    """``str()`` as Python prints it: ``{'a': 1}``, ``True``, ``1.5``."""
    return str(value)


def coerce_default_value(workflow_parameter_type: str, value: Any) -> tuple[Any, str | None]:
    """A ``workflow`` parameter's ``default_value`` converted to its declared type, as the
    service stores it; or the 400 message when it cannot be converted."""
    if value is None:
        return None, None
    failure = (
        f"Invalid workflow parameter. Expected parameter type: {workflow_parameter_type}. "
        f"Value: {_python_text(value)}."
    )
    kind = workflow_parameter_type
    try:
        if kind == "string":
            return (value if isinstance(value, str) else _python_text(value)), None
        if kind == "integer":
            if isinstance(value, (dict, list)):
                return None, failure
            return int(value), None  # int("1.5") fails, int(1.5) truncates, int(True) == 1
        if kind == "float":
            if isinstance(value, (dict, list)):
                return None, failure
            return float(value), None
        if kind == "boolean":
            if isinstance(value, bool):
                return value, None
            text = _python_text(value).lower()
            if text in ("true", "1"):
                return True, None
            if text in ("false", "0"):
                return False, None
            return None, failure
        if kind == "json":
            import json

            return json.loads(json.dumps(value)), None
    except (TypeError, ValueError, OverflowError):
        return None, failure
    return value, None  # file_url, credential_id: passed through


# --------------------------------------------------------------------------- credential rotation (§6.4 C4)


def normalize_credential_ids(
    credential_id: str, credential_ids: Sequence[str] | None, fallback_credential_ids: Sequence[str] | None
) -> tuple[str, list[str] | None, list[str] | None]:
    """Step 6 of the rotation rules: de-duplicate, make ``credential_id`` the first rotation
    id, and drop the primary from the fallbacks (an empty fallback list becomes null)."""
    ids = list(dict.fromkeys(credential_ids)) if credential_ids is not None else None
    if ids:
        credential_id = ids[0]
    fallbacks = None
    if fallback_credential_ids is not None:
        fallbacks = [i for i in dict.fromkeys(fallback_credential_ids) if i != credential_id] or None
    return credential_id, ids, fallbacks


# --------------------------------------------------------------------------- proxy location (§2.3)

ISO_COUNTRIES = frozenset("""
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE
EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW
""".split())


def geo_target_country_error(country: str) -> str | None:
    """A GeoTarget ``country`` (already upper-cased) the service does not support. The
    service's list is not published; ISO 3166-1 alpha-2 stands in for it."""
    return None if country in ISO_COUNTRIES else f"Unsupported country code: {country}"
