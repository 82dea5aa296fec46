"""Every save-time check knows the releases that run it: a check a release does not run gives
no error carrying a service status at that release (release probes labelled by the real
releases; see fixtures/versions/VERDICTS.json for the files)."""

from __future__ import annotations

import pytest

from wflint.api import check_text
from wflint.project.config import Config


def verdict(text: str, path: str, release: str) -> int:
    """wflint's verdict at ``release``, read as the harness reads it: the status of the first
    finding that carries one, 200 when none does."""
    diags = check_text(text, path=path, config=Config(target_version=release))
    statuses = [d.service.status for d in diags if d.service is not None]
    return statuses[0] if statuses else 200


REQUEST = "title: t\n{top}workflow_definition:\n  parameters: []\n  blocks:\n    - block_type: wait\n      label: w\n      wait_sec: 1\n"


@pytest.mark.parametrize("url, newest", [
    ("mailto:ops@example.com", 400),          # urlparse reads the scheme 'mailto' before https:// is assumed
    ("hooks.example.com:8443/x", 400),        # ... and 'hooks.example.com' here
    ("ftp://hooks.example.com/x", 400),
    ("hooks.example.com/x", 200),             # no scheme: https:// is assumed
    ("https://hooks.example.com/x", 200),
])
def test_webhook_url_rules_apply_from_1_0_55_and_not_at_1_0_48(url, newest):
    text = REQUEST.format(top=f"webhook_callback_url: '{url}'\n")
    assert verdict(text, "f.yaml", "1.0.56") == newest
    assert verdict(text, "f.yaml", "1.0.55") == newest
    assert verdict(text, "f.yaml", "1.0.48") == 200  # 1.0.48 stores the text unchecked
    if newest != 200:
        old = [d for d in check_text(text, path="f.yaml", config=Config(target_version="1.0.48")) if d.code == "WF504"]
        assert old and old[0].severity == "warning" and "1.0.48 stores it unchecked" in old[0].message


def test_browser_type_values_are_checked_only_where_the_field_exists():
    text = REQUEST.format(top="browser_type: firefox\n")
    assert verdict(text, "f.yaml", "1.0.56") == 422
    assert verdict(text, "f.yaml", "1.0.48") == 200
    codes = [d.code for d in check_text(text, path="f.yaml", config=Config(target_version="1.0.48"))]
    assert codes == ["WF104"]  # dropped silently: a field of later releases


def test_code_jinja_is_checked_only_by_releases_that_parse_it():
    text = ("title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - block_type: code\n      label: c\n"
            "      code: \"result = '{{ 1 | nosuchfilter }}'\"\n")
    assert verdict(text, "f.yaml", "1.0.55") == 422
    assert verdict(text, "f.yaml", "1.0.48") == 200
