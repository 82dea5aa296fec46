"""The package layout is a contract: layers from the CLI down to the model, checked by
import-linter, and the lists in that contract kept complete as modules are added."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "wflint"


def _contracts() -> list[dict]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def test_import_contracts_are_kept():
    exe = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.fail("lint-imports is not installed: install the test extra (pip install -e '.[test]')")
    r = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout


def test_every_top_level_module_is_in_a_layer():
    layers = next(c for c in _contracts() if c["type"] == "layers")["layers"]
    # a layer names a top-level module or package, or a module of one (wflint.core.records)
    named = {".".join(part.strip().split(".")[:2]) for layer in layers for part in layer.split("|")}
    modules = {
        f"wflint.{p.stem if p.is_file() else p.name}"
        for p in PACKAGE.iterdir()
        if (p.is_file() and p.suffix == ".py" and p.stem not in ("__init__", "__main__"))
        or (p.is_dir() and (p / "__init__.py").exists())
    }
    assert modules == named, f"not in a layer: {sorted(modules - named)}; gone: {sorted(named - modules)}"


def test_package_root_holds_only_the_entry_points_and_the_library_api():
    """Everything else lives in the stage it belongs to (issue 35: seven modules or fewer)."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= 7, loose


def test_every_part_of_the_mock_is_a_documented_layer():
    """``wflint.server``'s sub-packages each say what they own, and the layers contract over
    the server names every one of them (a new part must be placed, not merely added)."""
    contract = next(c for c in _contracts() if c.get("containers") == ["wflint.server"])
    named = {part.strip() for layer in contract["layers"] for part in layer.split("|")}
    server = PACKAGE / "server"
    parts = {p.stem for p in server.glob("*.py") if p.stem not in ("__init__", "__main__")}
    packages = {p.name for p in server.iterdir() if (p / "__init__.py").exists()}
    assert parts | packages == named
    assert len(packages) >= 4
    for package in packages:
        doc = ast.get_docstring(ast.parse((server / package / "__init__.py").read_text()))
        assert doc and len(doc) > 80, f"wflint.server.{package} does not say what it owns"


def test_rule_independence_contract_names_every_rule_module():
    contract = next(c for c in _contracts() if c["type"] == "independence" and "Rule modules" in c["name"])
    on_disk = {f"wflint.rules.{p.stem}" for p in (PACKAGE / "rules").glob("wf*.py")}
    assert set(contract["modules"]) == on_disk


def test_stage_reported_rules_match_the_registry():
    """The parser and the unwrapper report some rules before the rule layer runs; their codes,
    names and severities must be the rule modules' own."""
    from wflint.document.parse_result import _NAMES
    from wflint.rules import registry
    from wflint.workflow.unwrap import REPORTED_RULES

    rules = registry()
    for code, name in _NAMES.items():
        assert rules[code].name == name
        assert rules[code].severity == "error"
    for code, name, severity in REPORTED_RULES:
        assert (rules[code].name, rules[code].severity) == (name, severity)
