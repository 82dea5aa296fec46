"""Versioned model: each modelled release refuses what the real release refuses.

``fixtures/versions/`` holds one small definition per difference between the modelled releases;
``VERDICTS.json`` records what each real release answered (written by the differential harness,
``tools/oracle/harness.py --verdicts``). ``wflint check --target-version V`` must refuse exactly
those V refuses, with the same status.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint import model
from wflint.api import check_file
from wflint.cli import main
from wflint.project.config import Config, ConfigError, from_table

ROOT = Path(__file__).resolve().parent.parent
VERSIONS = ROOT / "fixtures" / "versions"
VERDICTS = json.loads((VERSIONS / "VERDICTS.json").read_text())

CASES = [(name, release, v) for name, per in sorted(VERDICTS.items()) for release, v in sorted(per.items())]


def test_every_fixture_has_a_verdict_per_release_and_differs_somewhere():
    files = sorted(p.name for p in VERSIONS.iterdir() if p.suffix in (".json", ".yaml") and p.name != "VERDICTS.json")
    assert sorted(VERDICTS) == files
    for name, per in VERDICTS.items():
        assert sorted(per) == sorted(model.RELEASES), name
        # a version fixture exists because the releases answer it differently
        answers = {(v["accepted"], v["status"]) for v in per.values()}
        assert len(answers) > 1, f"{name}: every release answers the same"


@pytest.mark.parametrize(("name", "release", "verdict"), CASES, ids=[f"{n}@{r}" for n, r, _ in CASES])
def test_target_version_answers_as_the_release(name, release, verdict):
    diags = check_file(VERSIONS / name, Config(target_version=release))
    rejections = sorted((d for d in diags if d.service is not None),
                        key=lambda d: tuple((0, x) if isinstance(x, int) else (1, str(x)) for x in d.service.order))
    if verdict["accepted"]:
        assert rejections == [], [d.message for d in rejections]
    else:
        assert rejections, f"{release} refuses {name} ({verdict['status']}) but wflint accepts it"
        assert rejections[0].service.status == verdict["status"]
        if rejections[0].service.detail is not None and "detail" in verdict:
            assert rejections[0].service.detail == verdict["detail"]


def test_messages_name_the_release_that_added_a_field_or_type():
    diags = check_file(VERSIONS / "send_email_gmail_without_sender.yaml", Config(target_version="1.0.55"))
    transport = [d for d in diags if "'transport'" in d.message]
    assert transport and "from 1.0.56" in transport[0].message and "1.0.55" in transport[0].message
    diags = check_file(VERSIONS / "web_search_block.json", Config(target_version="1.0.48"))
    assert any("'web_search' is a block type from 1.0.55" in d.message for d in diags)


def test_unknown_to_every_release_names_the_newest(tmp_path):
    f = tmp_path / "flow.json"
    f.write_text(json.dumps({"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "teleport", "label": "a"}]}}))
    (d,) = [d for d in check_file(f, Config()) if d.code == "WF103"]
    assert f"up to {model.NEWEST}" in (d.help or "")


def test_target_version_in_config_and_on_the_command_line(tmp_path):
    assert from_table({"target-version": "1.0.55"}, "cfg").validate().target_version == "1.0.55"
    with pytest.raises(ConfigError, match="modelled releases: 1.0.40, 1.0.41, .*, 1.0.48, 1.0.55, 1.0.56"):
        from_table({"target-version": "9.9.9"}, "cfg").validate()
    runner = CliRunner()
    fixture = str(VERSIONS / "send_email_cc_with_smtp.yaml")
    assert runner.invoke(main, ["check", fixture, "--target-version", "1.0.55"]).exit_code == 0
    assert runner.invoke(main, ["check", fixture, "--target-version", "1.0.56"]).exit_code == 1
    assert runner.invoke(main, ["check", fixture, "--target-version", "2.0"]).exit_code == 2
    out = runner.invoke(main, ["--version"]).output
    assert "1.0.48, 1.0.55, 1.0.56" in out


def test_schema_per_release(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["schema", "--target-version", "1.0.48", "-o", str(tmp_path)]).exit_code == 0
    doc = json.loads((tmp_path / "workflow-definition.schema.json").read_text())
    assert "web_search" not in doc["$defs"]["BlockType"]["enum"]
    assert "1.0.48" in doc["$id"]
    # the committed schemas are the newest release's
    assert runner.invoke(main, ["schema", "--check", "-o", str(ROOT / "schemas")]).exit_code == 0


@pytest.mark.parametrize(("name", "release", "verdict"), CASES, ids=[f"{n}@{r}" for n, r, _ in CASES])
def test_the_mock_answers_as_the_release(name, release, verdict):
    testing = pytest.importorskip("wflint.server.testing")
    client = testing.make_client(target_version=release)
    headers = {"x-api-key": "key-a"}
    seed = {"title": "seed", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "wait", "label": "w", "wait_sec": 1}]}}
    wpid = client.post("/v1/workflows", json={"json_definition": seed}, headers=headers).json()["workflow_permanent_id"]
    text = (VERSIONS / name).read_text()
    data = None if name.endswith(".yaml") else json.loads(text)
    if data is None:
        body = {"yaml_definition": text}
    elif "json_definition" in data or "yaml_definition" in data:
        body = data  # an update body, sent as it is (as the harness sends it)
    else:
        body = {"json_definition": data}
    reply = client.post(f"/v1/workflows/{wpid}", json=body, headers=headers)
    if verdict["accepted"]:
        assert reply.status_code == 200, reply.text
    else:
        # the mock never answers 500: where the release fails the save, it answers 422
        assert reply.status_code == (422 if verdict["status"] >= 500 else verdict["status"]), reply.text
        if "detail" in verdict and verdict["status"] < 500:
            assert reply.json()["detail"] == verdict["detail"]


def test_release_views_follow_the_marks():
    old, mid, new = (model.release(r) for r in ("1.0.48", "1.0.55", "1.0.56"))
    assert new is model.release() is model.NEWEST_RELEASE
    assert "web_search" not in old.BLOCK_TYPES and "web_search" in mid.BLOCK_TYPES
    assert mid.BLOCK_TYPES["send_email"].field("transport") is None
    assert new.BLOCK_TYPES["send_email"].field("transport") is not None
    assert mid.BLOCK_TYPES["send_email"].field("sender").required
    assert not new.BLOCK_TYPES["send_email"].field("sender").required
    engine = {f.name: f for f in old.block_fields("task")}["engine"]
    assert engine.default == "skyvern-1.0" and not engine.nullable and "skyvern-3.0" not in engine.type.values
    assert not mid.has_check("send_email_transport") and new.has_check("send_email_transport")
    with pytest.raises(model.UnknownRelease):
        model.release("1.0.50")
