"""The service's verdict for every form a file takes (fixtures/forms): empty and non-mapping
documents, syntax errors, missing wrappers, webhook schemes, fields and checks of some releases
only, and the service's stored form as GET answers and exports carry it (made by the real
releases). ``VERDICTS.json`` holds each real release's reply, written by
``tools/oracle/probe.py --write``; wflint's verdict is read from ``service_status`` (the first
finding carrying one, in the service's pipeline order) as the oracle harness reads it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wflint.api import check_file
from wflint.project.config import Config
from wflint.model.releases import RELEASES

FORMS = Path(__file__).resolve().parent.parent / "fixtures" / "forms"
VERDICTS = json.loads((FORMS / "VERDICTS.json").read_text())
CASES = [(name, release, v) for name, per in sorted(VERDICTS.items()) for release, v in sorted(per.items())]


def _order(order: tuple) -> tuple:
    return tuple((0, x) if isinstance(x, (int, float)) else (1, str(x)) for x in order)


def test_every_form_has_the_reply_of_every_release():
    files = sorted(p.name for p in FORMS.iterdir() if p.name != "VERDICTS.json")
    assert sorted(VERDICTS) == files
    assert all(sorted(per) == sorted(RELEASES) for per in VERDICTS.values())


@pytest.mark.parametrize("name, release, label", CASES, ids=[f"{n}@{r}" for n, r, _ in CASES])
def test_wflint_gives_the_releases_verdict(name, release, label):
    diags = check_file(FORMS / name, Config(target_version=release))
    refusals = sorted((d for d in diags if d.service is not None), key=lambda d: _order(d.service.order))
    status = refusals[0].service.status if refusals else 200
    assert status == label["status"], [(d.code, d.service) for d in refusals]
    if refusals and refusals[0].service.detail is not None and "detail" in label:
        assert refusals[0].service.detail == label["detail"]
    if label["accepted"]:
        assert not any(d.service for d in diags)


def test_an_edited_export_with_odd_discriminators_is_reported_not_a_crash():
    """Found by the harness's edited exports: a parameter_type or block_type that is not a
    string made the stored-form conversion raise."""
    from wflint.api import check_text
    from wflint.fix import fix_text

    text = json.dumps({"title": "t", "workflow_definition": {
        "parameters": [{"parameter_type": {"a": 1}, "key": "k", "workflow_parameter_id": "wp_1"}],
        "blocks": [{"block_type": ["wait"], "label": "w", "output_parameter": {"key": "w_output"}}]}})
    codes = [d.code for d in check_text(text, path="f.json")]
    assert codes.count("WF102") == 2
    fix_text(text, "f.json")  # converts or leaves alone, without raising
