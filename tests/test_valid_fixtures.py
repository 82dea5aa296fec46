"""The realistic fixtures: fixtures/valid must lint clean, fixtures/invalid must not.

* every file in ``fixtures/valid`` draws no diagnostic of severity "error";
* every file in ``fixtures/invalid`` draws at least one error;
* every valid fixture validates against the generated JSON Schema: a bare request against
  ``workflow-definition.schema.json``, an update body against ``update-body.schema.json``,
  and the YAML held in a ``yaml_definition`` string (loaded as the service loads it: YAML 1.1
  without timestamps, reference §8.1) against ``workflow-definition.schema.json`` again.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from wflint.api import check_file
from wflint.model import schema

ROOT = Path(__file__).resolve().parents[1]
VALID_DIR = ROOT / "fixtures" / "valid"
INVALID_DIR = ROOT / "fixtures" / "invalid"
SUFFIXES = (".json", ".yaml", ".yml")

VALID = sorted(p for p in VALID_DIR.iterdir() if p.suffix in SUFFIXES)
INVALID = sorted(p for p in INVALID_DIR.iterdir() if p.suffix in SUFFIXES)

ENVELOPE_KEYS = ("json_definition", "yaml_definition")
REQUEST_SCHEMA = "workflow-definition.schema.json"
BODY_SCHEMA = "update-body.schema.json"


# ------------------------------------------------------------------ YAML as the service reads it

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


def _no_timestamp_loader() -> type:
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loader = type("FixtureLoader", (base,), {})
    loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    return loader


LOADER = _no_timestamp_loader()


def load_yaml(text: str) -> Any:
    return yaml.load(text, Loader=LOADER)  # noqa: S506 - a safe loader


def load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else load_yaml(text)


# ------------------------------------------------------------------ schema helpers


@lru_cache(maxsize=None)
def validator(name: str) -> jsonschema.Draft202012Validator:
    doc = schema.documents()[name]
    jsonschema.Draft202012Validator.check_schema(doc)
    return jsonschema.Draft202012Validator(doc)


def schema_errors(name: str, instance: Any) -> list[str]:
    errors = sorted(validator(name).iter_errors(instance), key=lambda e: list(e.absolute_path))
    return [f"{name}: {'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors]


def documents_to_validate(path: Path) -> list[tuple[str, Any]]:
    """(schema name, instance) pairs for one fixture file."""
    data = load(path)
    assert isinstance(data, dict), f"{path.name}: the file must hold a mapping"
    if not any(k in data for k in ENVELOPE_KEYS):
        return [(REQUEST_SCHEMA, data)]
    out: list[tuple[str, Any]] = [(BODY_SCHEMA, data)]
    if isinstance(data.get("json_definition"), dict):
        out.append((REQUEST_SCHEMA, data["json_definition"]))
    if isinstance(data.get("yaml_definition"), str) and data["yaml_definition"]:
        out.append((REQUEST_SCHEMA, load_yaml(data["yaml_definition"])))
    return out


def show(diags) -> str:
    return "\n".join(f"  {d.severity} {d.code} [{d.name}] {d.message}" for d in diags) or "  (none)"


def errors_of(path: Path):
    diags = check_file(path) or []
    return diags, [d for d in diags if d.severity == "error"]


# ------------------------------------------------------------------ the tests


def test_the_fixture_sets_are_not_empty():
    assert len(VALID) >= 20
    assert len(INVALID) >= 20


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_fixture_draws_no_error(path: Path):
    diags, errors = errors_of(path)
    assert not errors, f"{path.name} should lint without errors; got:\n{show(diags)}"


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_fixture_draws_an_error(path: Path):
    diags, errors = errors_of(path)
    assert errors, f"{path.name} holds a mistake the service rejects, but drew no error; got:\n{show(diags)}"


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_fixture_matches_the_json_schema(path: Path):
    problems: list[str] = []
    for name, instance in documents_to_validate(path):
        problems.extend(schema_errors(name, instance))
    assert not problems, f"{path.name} does not match the generated schema:\n" + "\n".join(problems)


def test_every_invalid_fixture_has_a_verdict():
    verdicts = (INVALID_DIR / "VERDICTS.md").read_text(encoding="utf-8")
    missing = [p.name for p in INVALID if f"`{p.name}`" not in verdicts]
    assert not missing, f"VERDICTS.md says nothing about: {', '.join(missing)}"
