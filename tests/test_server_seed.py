"""--seed: every workflow form a repository holds becomes a workflow with a stable id."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("starlette")

from wflint.server.seed import SeedError, seed, seed_id  # noqa: E402
from wflint.server.testing import make_state  # noqa: E402

ORG = "o_100000000000000000"
BARE_YAML = "title: Bare\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a, wait_sec: 1}\n"
BODY_YAML = "yaml_definition: |\n  title: Wrapped\n  workflow_definition:\n    parameters: []\n    blocks:\n      - {block_type: wait, label: a, wait_sec: 1}\n"
BODY_JSON = '{"json_definition": {"title": "Json body", "workflow_definition": {"parameters": [], "blocks": []}}}'


def test_seed_reads_every_form_and_skips_non_workflows(tmp_path: Path):
    (tmp_path / "bare.yaml").write_text(BARE_YAML)
    (tmp_path / "body.yaml").write_text(BODY_YAML)
    (tmp_path / "body.json").write_text(BODY_JSON)
    (tmp_path / "settings.yaml").write_text("retries: 3\n")
    state = make_state()
    seeded = {s.title: s for s in seed(state, ORG, [str(tmp_path)])}
    assert set(seeded) == {"Bare", "Wrapped", "Json body"}
    assert seeded["Wrapped"].wpid == seed_id(tmp_path / "body.yaml")
    again = {s.title: s.version for s in seed(state, ORG, [str(tmp_path)])}
    assert again == {"Bare": 1, "Wrapped": 1, "Json body": 1}  # unchanged files stay at version 1


def test_seed_refuses_what_the_service_refuses(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(BARE_YAML.replace("wait_sec: 1", "wait_sec: 0"))
    with pytest.raises(SeedError, match="422"):
        seed(make_state(), ORG, [str(bad)])
