"""The service's custom model rules, one function each (reference §3-§5, §6.2)."""

from __future__ import annotations

import pytest

from wflint.checks import service_checks as r

IDENT_TAIL = ("must be valid Python identifiers (only letters, digits, and underscores; cannot start "
              "with a digit). Characters like '/', '-', '.', etc. are not allowed because they "
              "conflict with Jinja2 template syntax.")


@pytest.mark.parametrize("label", ["a", "open_page", "café", "for", "None", "_1st"])
def test_valid_labels(label):
    assert r.block_label_error(label) is None


def test_label_messages():
    assert r.block_label_error("") == "Block labels cannot be empty."
    assert r.block_label_error("  \t") == "Block labels cannot be empty."
    assert r.block_label_error("my-wait") == f"Block label 'my-wait' is not a valid label. Block labels {IDENT_TAIL}"
    assert r.block_label_error("1st") is not None


def test_key_messages_in_order():
    assert r.parameter_key_error("a b") == "Key cannot contain whitespace characters"
    assert r.parameter_key_error("a\nb") == "Key cannot contain whitespace characters"
    assert r.parameter_key_error("a-b") == f"Key 'a-b' is not a valid parameter name. Parameter keys {IDENT_TAIL}"
    assert r.parameter_key_error("") is not None and "not a valid parameter name" in r.parameter_key_error("")
    assert r.parameter_key_error("for") is None and r.parameter_key_error("café") is None


def test_branch_rules():
    assert r.branch_condition_error(False, False) == "Branches without criteria must be marked as default."
    assert r.branch_condition_error(True, True) == "Default branches may not define criteria."
    assert r.branch_condition_error(True, False) is None and r.branch_condition_error(False, True) is None
    assert r.conditional_branches_error([]) == "Conditional blocks require at least one branch."
    assert r.conditional_branches_error([True, True]) == "Only one default branch is permitted per conditional block."
    assert r.conditional_branches_error([False, False]) is None


def test_code_block_keys():
    assert r.code_block_key_error(["code", "error_code"]) == "Code blocks do not accept 'error_code'; use 'error_code_mapping'"
    assert r.code_block_key_error(["parameters"]).startswith("Code blocks do not accept a 'parameters' field")
    assert r.code_block_key_error(["code", "label"]) is None


@pytest.mark.parametrize("mapping, message", [
    ([], "error_code_mapping must be a dictionary"),
    ({f"k{i}": "v" for i in range(65)}, "error_code_mapping must contain at most 64 entries"),
    ({" k": "v"}, "error code keys must be trimmed, non-empty strings of at most 128 characters"),
    ({"k" * 129: "v"}, "error code keys must be trimmed, non-empty strings of at most 128 characters"),
    ({"k\u200b": "v"}, "error code keys must not contain Unicode category-C characters"),
    ({"k": ""}, "error code descriptions must be trimmed, non-empty strings of at most 2000 characters"),
    ({"k": 5}, "error code descriptions must be trimmed, non-empty strings of at most 2000 characters"),
    ({"k": "a\x00b"}, "error code descriptions must not contain Unicode category-C characters"),
    ({f"k{i}": "v" * 2000 for i in range(17)}, "error_code_mapping keys and values must total at most 32768 UTF-8 bytes"),
    ({"ok": "fine"}, None),
])
def test_code_error_code_mapping(mapping, message):
    assert r.code_error_code_mapping_error(mapping) == message


def test_code_mapping_first_failing_entry_wins():
    assert r.code_error_code_mapping_error({"k": "", " x": "v"}).startswith("error code descriptions")


def test_terminate_error_code():
    assert r.terminate_error_code_error("ERR_1.a:b-c") is None
    assert r.terminate_error_code_error("") == "error code keys must be trimmed, non-empty strings of at most 128 characters"
    assert r.terminate_error_code_error("x" * 129).startswith("error code keys must be trimmed")
    assert r.terminate_error_code_error("a\tb") == "error code keys must not contain Unicode category-C characters"
    assert r.terminate_error_code_error("no spaces") == (
        "literal error codes may contain only ASCII letters, digits, underscores, periods, colons, and hyphens")
    assert r.terminate_error_code_error("{{ code }} with spaces") is None  # a template: category C only
    assert r.terminate_error_code_error("{{ a }}\x07") == "error code keys must not contain Unicode category-C characters"
    assert r.normalize_terminate_error_code("  E1 ") == "E1"


def test_send_email_rules_in_order():
    base = dict(transport=None, custom_smtp_host=None, custom_smtp_port=None, custom_smtp_username=None,
                custom_smtp_password=None, sender_given=True, cc=[], bcc=[])
    assert r.send_email_transport_error(**base) is None
    assert r.send_email_transport_error(**{**base, "transport": "gmail", "custom_smtp_port": 25}) == (
        "custom SMTP settings cannot be combined with the gmail transport")
    assert r.send_email_transport_error(**{**base, "transport": "gmail", "custom_smtp_host": "  "}) is None
    assert r.send_email_transport_error(**{**base, "transport": "gmail", "sender_given": False, "cc": ["a@b"]}) is None
    assert r.send_email_transport_error(**{**base, "sender_given": False, "cc": ["a@b"]}) == (
        "sender is required unless the transport is gmail")
    assert r.send_email_transport_error(**{**base, "bcc": ["", "x@y"]}) == "cc and bcc are only supported with the gmail transport"
    assert r.send_email_transport_error(**{**base, "cc": ["  "]}) is None


def test_web_search_rules():
    assert r.outcome_error_code_error("  ") == "Outcome error codes must not be blank."
    assert r.outcome_error_code_error("NONE") is None
    assert r.web_search_no_match_error("E", None) == "No Match Error Code requires a Prompt."
    assert r.web_search_no_match_error("E", " ") == "No Match Error Code requires a Prompt."
    assert r.web_search_no_match_error("E", "pick") is None and r.web_search_no_match_error(None, None) is None
    assert r.web_search_json_schema_error({"type": "object"}) is None
    assert r.web_search_json_schema_error({"type": "{{ t }}"}) is None  # templated: not checked
    msg = r.web_search_json_schema_error({"type": "foo"})
    assert msg.startswith("The Data Schema is not a valid JSON Schema: ") and msg.endswith(".")


def test_http_request_conflict():
    assert r.http_request_conflict_error(True, ["a"]) == "secret_response_paths cannot be combined with save_response_as_file"
    assert r.http_request_conflict_error(True, []) is None and r.http_request_conflict_error(False, ["a"]) is None


def test_retry_rules():
    assert r.retry_on_duplicate_error(["failed", "failed"]) == "retry_on must contain each status at most once"
    assert r.retry_on_duplicate_error(["failed", "timed_out"]) is None
    assert r.normalize_error_codes(["a", "b", "a"]) == ["a", "b"] and r.normalize_error_codes(None) is None


def test_timezone_rule():
    assert r.timezone_error("America/New_York") is None and r.timezone_error("UTC") is None
    assert r.timezone_error("+05:00") == (
        "timezone_id '+05:00' is not an IANA timezone name. Use a name such as 'America/New_York' or "
        "'Africa/Kampala'; UTC offsets are not accepted.")
    assert r.timezone_error("Mars/Olympus") is not None and r.timezone_error("") is not None


def test_top_level_rules():
    assert r.browser_type_error("chrome") is None
    assert r.browser_type_error("firefox") == "Invalid browser_type 'firefox'; must be one of: msedge, chrome, stealth-chromium"
    assert r.max_elapsed_time_minutes_bool_error(True) == "max_elapsed_time_minutes must be an integer, not a boolean"
    assert r.max_elapsed_time_minutes_bool_error(5) is None


def test_definition_checks_in_order():
    assert r.duplicate_top_level_labels_error(["b", "a", "b", "a", "c"]) == (
        "Block labels must be unique within a workflow. Found duplicate label(s): a, b")
    assert r.finally_label_error("zz", ["a", "b"]) == (
        "finally_block_label 'zz' does not reference a valid block. Available labels: a, b")
    assert r.finally_label_error("zz", []).endswith("Available labels: (none)")
    assert r.finally_label_error("", ["a"]) is None
    # duplicates are reported before the finally label
    assert r.definition_error(["a", "a"], "zz", None, [])[1].startswith("Block labels must be unique")


def test_version_inference():
    plain, routed, cond = [("wait", None)], [("wait", "b"), ("wait", None)], [("conditional", None)]
    assert r.infer_definition_version(None, plain) == (1, None)
    assert r.infer_definition_version(None, routed) == (2, None)
    assert r.infer_definition_version(None, cond) == (2, None)
    assert r.infer_definition_version(99, plain) == (99, None)
    version, err = r.infer_definition_version(1, cond)
    assert err == ("workflow_definition.version must be 2 or greater when using conditional blocks or "
                   "explicit next_block_label routing.")


@pytest.mark.parametrize("kind, value, stored", [
    ("string", 5, "5"), ("string", {"a": 1}, "{'a': 1}"), ("integer", "12", 12), ("integer", 3.9, 3),
    ("integer", True, 1), ("float", "1.5", 1.5), ("float", 2, 2.0), ("boolean", "TRUE", True),
    ("boolean", 0, False), ("boolean", "1", True), ("json", "not json", "not json"), ("json", [1, 2], [1, 2]),
    ("file_url", {"x": 1}, {"x": 1}), ("integer", None, None),
])
def test_default_value_coercion(kind, value, stored):
    assert r.coerce_default_value(kind, value) == (stored, None)


@pytest.mark.parametrize("kind, value, shown", [
    ("integer", "abc", "abc"), ("integer", "1.5", "1.5"), ("float", "x", "x"), ("boolean", "yes", "yes"),
    ("boolean", 2, "2"),
])
def test_default_value_coercion_failures(kind, value, shown):
    assert r.coerce_default_value(kind, value) == (
        None, f"Invalid workflow parameter. Expected parameter type: {kind}. Value: {shown}.")


def test_credential_normalisation():
    assert r.normalize_credential_ids("c0", ["c1", "c2", "c1"], None) == ("c1", ["c1", "c2"], None)
    assert r.normalize_credential_ids("c0", None, ["c0", "c3", "c3"]) == ("c0", None, ["c3"])
    assert r.normalize_credential_ids("c0", None, ["c0"]) == ("c0", None, None)
