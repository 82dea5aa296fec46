"""The compiled validation fast path (jsonschema-rs) and python-jsonschema agree.

The fast path only skips the error tree for documents it accepts, so what matters is that it
never accepts what python-jsonschema refuses. Checked on every object of every fixture (the
rule fixtures, the realistic valid and invalid sets): the verdicts must be equal, and the
diagnostics of every fixture must be the same with the fast path on and off.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wflint.api import check_file
from wflint.checks import fast_validation
from wflint.document.parse import parse
from wflint.document.source import decode
from wflint.model import REQUEST
from wflint.model.validators import lint_schema, validator
from wflint.rules.model_findings import schema_parts
from wflint.workflow import unwrap

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted(
    p for d in ("fixtures/valid", "fixtures/invalid", "fixtures/rules") for p in (ROOT / d).rglob("*")
    if p.suffix in (".json", ".yaml", ".yml")
)

pytestmark = pytest.mark.skipif(not fast_validation.available(), reason="jsonschema-rs is not installed")


def _objects(path: Path):
    """(definition, data) for the request and every typed block and parameter in the file."""
    source, _ = decode(path.read_bytes(), str(path))
    if source is None:
        return
    parsed = parse(source)
    if parsed.root is None or parsed.root.kind != "map":
        return
    for wf in unwrap.unwrap(source, parsed.root, parsed.format, "auto").workflows:
        yield REQUEST.name, wf.request
        for _, def_name, data in schema_parts(wf):
            yield def_name, data


def test_the_fixtures_are_found():
    assert len(FIXTURES) > 100


def test_fast_and_slow_verdicts_agree_on_every_fixture_object():
    compared = invalid = 0
    disagreements = []
    for path in FIXTURES:
        for def_name, data in _objects(path):
            slow = validator(def_name).is_valid(data)
            fast = fast_validation.surely_valid(lint_schema(def_name), data)
            compared += 1
            invalid += not slow
            if fast != slow:
                disagreements.append(f"{path.relative_to(ROOT)} {def_name}: fast {fast}, slow {slow}")
    assert not disagreements, "\n".join(disagreements)
    # both kinds of verdict were exercised
    assert compared > 500 and invalid >= 10, (compared, invalid)


#: values that break (or, as lax strings, pass) the field types of the model
ODD_VALUES = (None, True, 0, -1, 1.5, 1.0, "", " ", "5", "5\n", "true\n", "x" * 3, "1_000", [], [1], {}, {"a": 1})


def test_fast_and_slow_verdicts_agree_on_mutated_fixture_objects():
    """Every field of every block and parameter of the valid fixtures, set to odd values."""
    seen = set()
    compared = invalid = 0
    disagreements = []
    for path in FIXTURES:
        if "valid" not in path.parent.name:
            continue
        for def_name, data in _objects(path):
            if def_name == REQUEST.name or def_name in seen:
                continue
            seen.add(def_name)
            for key in list(data):
                for odd in ODD_VALUES:
                    mutated = {**data, key: odd}
                    slow = validator(def_name).is_valid(mutated)
                    fast = fast_validation.surely_valid(lint_schema(def_name), mutated)
                    compared += 1
                    invalid += not slow
                    if fast and not slow:
                        disagreements.append(f"{def_name}.{key} = {odd!r}: the fast path accepts it")
    assert not disagreements, "\n".join(disagreements)
    assert compared > 1000 and invalid > 300, (compared, invalid)


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT)) for p in FIXTURES])
def test_diagnostics_are_the_same_without_the_fast_path(path, monkeypatch):
    fast = check_file(path)
    monkeypatch.setenv(fast_validation.ENV_SWITCH, "0")
    assert not fast_validation.available()
    assert check_file(path) == fast


def test_unrepresentable_data_takes_the_slow_path():
    schema = lint_schema(REQUEST.name)
    assert fast_validation.surely_valid(schema, {1: "a non-string key"}) is False
    assert fast_validation.surely_valid(schema, {"title": "x", "workflow_definition": {"blocks": [], "parameters": []}})


# --------------------------------------------------------------------------- patterns

from hypothesis import given, settings, strategies as st  # noqa: E402

from wflint.model.schema import BOOL_STRING, INT_STRING, NUMBER_STRING  # noqa: E402


def test_patterns_are_read_with_pythons_re():
    """A pattern only Python's ``re`` reads (a named back-reference) compiles and answers as
    python-jsonschema does: the fast path reads patterns with ``re``, not jsonschema-rs's engine."""
    schema = {"type": "string", "pattern": "^(?P<x>a+)-(?P=x)$"}
    assert fast_validation.surely_valid(schema, "aa-aa")
    assert not fast_validation.surely_valid(schema, "aa-a")


_LAX_TEXT = st.text(alphabet="0123456789_+-. \t\n\u00a0\u2003eEoOnNfFyYsStTrRuUlLaA", max_size=12)


@settings(max_examples=400, deadline=None)
@given(pattern=st.sampled_from([BOOL_STRING, INT_STRING, NUMBER_STRING]), text=_LAX_TEXT)
def test_the_lax_patterns_answer_as_python_jsonschema(pattern, text):
    from jsonschema import Draft202012Validator

    schema = {"anyOf": [{"type": "boolean"}, {"type": "string", "pattern": pattern}]}
    slow = Draft202012Validator(schema).is_valid(text)
    assert fast_validation.surely_valid(schema, text) == slow
