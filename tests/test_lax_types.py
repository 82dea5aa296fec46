"""The schemas' lax integers, numbers and booleans accept exactly what the service's
validation library (pydantic, lax mode) accepts: property-based, against pydantic itself."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from wflint.model import types as t
from wflint.model.schema import type_schema

pydantic = pytest.importorskip("pydantic")

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-10**6, max_value=10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.sampled_from(["5", " 7 ", "+3", "-0", "5.0", "5.5", "1_000", "1__0", "_1", "0x1F", "1e3", "abc", "", " ",
                     "yes", "no", "on", "off", "Y", "n", "t", "F", "TRUE", "False", "1", "0", "2", "true ",
                     "inf", "nan", "1.5e2", ".5", "5.", "0005", "٣",
                     "0__0", "0__1", "00__0", "0__-1", "0-_1", "+0-1", "-0-1", "0-01", "0__1__1", "0__"]),
    st.text(alphabet="0123456789_+-. eE", max_size=6),
)


def _accepts(schema_type, value) -> bool:
    return Draft202012Validator({"$defs": {}, **type_schema(schema_type)}).is_valid(value)


def _pydantic_accepts(py_type, value) -> bool:
    try:
        pydantic.TypeAdapter(py_type).validate_python(value)
    except pydantic.ValidationError:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(scalars)
def test_lax_integer_matches_pydantic(value):
    if isinstance(value, float) and abs(value) > 2**53:
        return
    assert _accepts(t.Int(), value) == _pydantic_accepts(int, value), value


@settings(max_examples=400, deadline=None)
@given(scalars)
def test_lax_boolean_matches_pydantic(value):
    assert _accepts(t.Bool(), value) == _pydantic_accepts(bool, value), value


@settings(max_examples=400, deadline=None)
@given(scalars)
def test_lax_number_matches_pydantic(value):
    assert _accepts(t.Num(), value) == _pydantic_accepts(float, value), value


def test_strict_integer_refuses_strings():
    assert not _accepts(t.Int(strict=True), "5")
    assert _accepts(t.Int(strict=True), 5)


def test_strings_are_strict():
    for v in (5, 1.5, True, None):
        assert not _accepts(t.Str(), v)
    assert _accepts(t.Str(), "x")


@settings(max_examples=400, deadline=None)
@given(scalars)
def test_lax_int_reads_the_value_pydantic_reads(value):
    """Rules judge bounds on the integer the service reads (wait_sec "0-5" is -5, not junk)."""
    from wflint.model.lax import lax_int

    if isinstance(value, float) and abs(value) > 2**53:
        return
    try:
        expected = pydantic.TypeAdapter(int).validate_python(value)
    except pydantic.ValidationError:
        expected = None
    assert lax_int(value) == expected, value
