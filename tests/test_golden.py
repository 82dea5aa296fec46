"""Every rule fixture against its golden output, and the fixture naming contract:
``bad_*`` draws its rule, ``ok_*`` draws neither its rule nor any error."""

from __future__ import annotations

import pytest

import golden

FILES = golden.fixture_files()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(golden.FIXTURES)) for p in FILES])
def test_fixture_matches_golden(path):
    exp = golden.expected_path(path)
    assert exp.exists(), f"missing golden file {exp.name}: run python tests/golden.py --update and read it"
    assert golden.render(path) == exp.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(golden.FIXTURES)) for p in FILES])
def test_fixture_naming_contract(path):
    code = path.parent.name
    lines = golden.render(path).splitlines()
    codes = [line.split(": ", 2)[1].split(" ", 1)[0] for line in lines]
    if path.name.startswith("bad_"):
        assert code in codes, f"{path.name} should draw {code}, got {codes}"
    else:
        assert code not in codes, f"{path.name} must not draw {code}"
        assert not any(" error: " in line for line in lines), lines


def test_every_rule_has_fixtures():
    from wflint.rules import registry

    have = {p.parent.name for p in FILES}
    kinds = {(p.parent.name, p.name.split("_", 1)[0]) for p in FILES}
    missing = []
    for code in registry():
        if code not in have:
            missing.append(f"{code}: no fixtures")
            continue
        for kind in ("bad", "ok"):
            if (code, kind) not in kinds:
                missing.append(f"{code}: no {kind}_ fixture")
    assert not missing, missing
