"""A run's parameters as the service checks and stores them (run_params)."""

from __future__ import annotations

import pytest

from wflint.server.protocol.errors import Reply
from wflint.server.runs.params import resolve


def p(key, kind, **extra):
    return {"parameter_type": "workflow", "key": key, "workflow_parameter_type": kind, **extra}


def refused(params, data):
    with pytest.raises(Reply) as exc:
        resolve({"parameters": params}, data, "wpid_1")
    assert exc.value.status == 400
    return exc.value.body["detail"]


def test_missing_keys_are_named_together_sorted():
    params = [p("zeta", "string"), p("alpha", "integer"), p("d", "integer", default_value=2)]
    assert refused(params, {}) == "Missing value for parameter alpha, zeta in workflow wpid_1"


@pytest.mark.parametrize("kind, blank", [("integer", ""), ("float", "  "), ("boolean", ""), ("json", " "),
                                         ("file_url", ""), ("file_url", {}), ("file_url", {"s3uri": ""})])
def test_blank_values_count_as_missing_by_type(kind, blank):
    assert refused([p("k", kind)], {"k": blank}).startswith("Missing value for parameter k")


def test_an_empty_string_is_a_value_for_a_string_and_null_falls_back_to_the_default():
    params = [p("s", "string"), p("n", "integer", default_value=4)]
    assert resolve({"parameters": params}, {"s": "", "n": None}, "wpid_1") == {"s": "", "n": 4}


@pytest.mark.parametrize("kind, value, shown", [
    ("integer", "abc", "abc"), ("integer", "3.5", "3.5"), ("float", "x", "x"), ("boolean", "yes", "yes"),
    ("json", "A100", "A100"), ("json", 7, "7")])
def test_values_that_do_not_convert_are_refused_with_the_type_and_value(kind, value, shown):
    assert refused([p("k", kind)], {"k": value}) == \
        f"Invalid workflow parameter. Expected parameter type: {kind}. Value: {shown}."


def test_values_are_stored_as_their_type_reads_them():
    params = [p("i", "integer"), p("f", "float"), p("b", "boolean"), p("j", "json"), p("s", "string"),
              p("o", "json")]
    got = resolve({"parameters": params}, {"i": "5", "f": "2.5", "b": "TRUE", "j": "[1, 2]", "s": 5, "o": {"a": 1}},
                  "wpid_1")
    assert got == {"i": 5, "f": 2.5, "b": True, "j": [1, 2], "s": "5", "o": {"a": 1}}


def test_credential_parameters_may_be_left_out_and_other_kinds_are_not_run_parameters():
    params = [p("cred", "credential_id"), {"parameter_type": "output", "key": "x_output"}]
    assert resolve({"parameters": params}, {}, "wpid_1") == {}
