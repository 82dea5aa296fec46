"""Choosing the release to judge by: the spellings teams write, the repository's skyvern pin,
what --show-settings says; the release table of docs/releases.md; the verdicts that only some
releases give."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.api import check_bytes, check_text
from wflint.cli import main
from wflint.project.config import Config, ConfigError, discover, load
from wflint.model import RELEASES
from wflint.model.release_diff import differences, markdown_table
from wflint.model.releases import UnknownRelease, check_release
from wflint.project.release_pin import find_pin

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()  # the search stops at the repository's root
    return tmp_path


# --------------------------------------------------------------------------- spellings


@pytest.mark.parametrize("written", ["1.0.44", "v1.0.44", "V1.0.44", " 1.0.44 "])
def test_a_release_is_named_with_or_without_v(written):
    assert check_release(written) == "1.0.44"
    assert Config(target_version=written).validate().target_version == "1.0.44"


@pytest.mark.parametrize("written", ["1.0.49", "1.0.39", "vv1.0.44", "1.0", "latest"])
def test_an_unmodelled_release_is_refused_with_the_list(written):
    with pytest.raises(UnknownRelease, match="modelled releases: 1.0.40, 1.0.41"):
        check_release(written)


def test_every_published_release_since_1_0_40_is_modelled():
    assert RELEASES == ("1.0.40", "1.0.41", "1.0.42", "1.0.43", "1.0.44", "1.0.45", "1.0.46", "1.0.47",
                        "1.0.48", "1.0.55", "1.0.56")
    result = CliRunner().invoke(main, ["--version"])
    assert "1.0.40, 1.0.41, 1.0.42, 1.0.43, 1.0.44, 1.0.45, 1.0.46, 1.0.47, 1.0.48, 1.0.55, 1.0.56" in result.output


def test_the_command_line_takes_v_spelling(tmp_path):
    f = tmp_path / "flow.yaml"
    f.write_text("title: t\nworkflow_definition: {version: null, parameters: [], blocks: []}\n")
    runner = CliRunner()
    older = runner.invoke(main, ["check", str(f), "--target-version", "v1.0.43", "--format", "json"])
    newer = runner.invoke(main, ["check", str(f), "--target-version", "v1.0.44", "--format", "json"])
    assert older.exit_code == 1 and [d["code"] for d in json.loads(older.stdout)] == ["WF102"]
    assert newer.exit_code == 0, newer.output


# --------------------------------------------------------------------------- pins


@pytest.mark.parametrize(("name", "text"), [
    ("requirements.txt", "requests==2.32.0\nskyvern[local]==1.0.44  # the deployed server\n"),
    ("requirements-prod.txt", "-r base.txt\nSkyvern == 1.0.44 ; python_version >= '3.11'\n"),
    ("requirements.txt", "skyvern==1.0.44 \\\n    --hash=sha256:abc\n"),
    ("requirements.lock", "skyvern==1.0.44\n"),
    ("pyproject.toml", '[project]\nname = "x"\ndependencies = ["skyvern[local]==1.0.44"]\n'),
    ("pyproject.toml", '[project]\nname = "x"\n[project.optional-dependencies]\nserver = ["skyvern===1.0.44"]\n'),
    ("pyproject.toml", '[dependency-groups]\ndev = ["skyvern==1.0.44"]\n'),
    ("pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.11"\nskyvern = "1.0.44"\n'),
    ("pyproject.toml", '[tool.poetry.group.ops.dependencies]\nskyvern = {version = "==1.0.44", extras = ["local"]}\n'),
    ("poetry.lock", '[[package]]\nname = "skyvern"\nversion = "1.0.44"\n'),
    ("uv.lock", 'version = 1\n[[package]]\nname = "httpx"\nversion = "0.28.1"\n[[package]]\nname = "skyvern"\nversion = "1.0.44"\n'),
    ("Pipfile.lock", json.dumps({"default": {"skyvern": {"version": "==1.0.44"}}})),
])
def test_the_repository_pin_is_the_target_when_the_configuration_names_none(repo, name, text):
    (repo / name).write_text(text)
    sub = repo / "flows" / "nightly"
    sub.mkdir(parents=True)
    cfg = discover(sub).validate()
    assert cfg.target_version == "1.0.44"
    assert cfg.origins["target-version"].startswith(f"the skyvern pin in {repo / name}")


@pytest.mark.parametrize("text", ["skyvern>=1.0.40\n", "skyvern~=1.0.44\n", "skyvern\n", "# skyvern==1.0.44\n",
                                  "skyvern-tools==1.0.44\n"])
def test_a_range_or_a_comment_is_no_pin(repo, text):
    (repo / "requirements.txt").write_text(text)
    assert find_pin(repo) is None
    assert discover(repo).validate().target_version is None


def test_a_lock_file_wins_over_the_files_people_edit(repo):
    (repo / "requirements.txt").write_text("skyvern==1.0.47\n")
    (repo / "uv.lock").write_text('[[package]]\nname = "skyvern"\nversion = "1.0.45"\n')
    assert discover(repo).validate().target_version == "1.0.45"


def test_two_pins_that_disagree_are_a_configuration_error_unless_something_else_decides(repo):
    (repo / "requirements.txt").write_text("skyvern==1.0.44\n")
    (repo / "requirements-dev.txt").write_text("skyvern==1.0.45\n")
    with pytest.raises(ConfigError, match="pin different skyvern releases"):
        discover(repo).validate()
    cfg = discover(repo)
    cfg.target_version = "1.0.56"  # what --target-version does
    assert cfg.validate().target_version == "1.0.56"


def test_an_unmodelled_pin_says_where_it_came_from(repo):
    (repo / "requirements.txt").write_text("skyvern==1.0.57\n")
    with pytest.raises(ConfigError, match=r"1\.0\.57.*read from the skyvern pin in .*requirements\.txt"):
        discover(repo).validate()


def test_the_configuration_wins_over_the_pin(repo):
    (repo / "requirements.txt").write_text("skyvern==1.0.44\n")
    (repo / ".wflint.toml").write_text('target-version = "v1.0.47"\n')
    cfg = discover(repo).validate()
    assert cfg.target_version == "1.0.47" and cfg.origins["target-version"].endswith(".wflint.toml")
    assert load(repo / ".wflint.toml").validate().target_version == "1.0.47"


def test_the_search_stops_at_the_repository_root(tmp_path):
    (tmp_path / "requirements.txt").write_text("skyvern==1.0.44\n")
    inner = tmp_path / "project"
    (inner / ".git").mkdir(parents=True)
    assert discover(inner).validate().target_version is None


def test_show_settings_names_the_pin(repo, monkeypatch):
    (repo / "requirements.txt").write_text("skyvern==v1.0.42\n")
    monkeypatch.chdir(repo)
    out = CliRunner().invoke(main, ["check", "--show-settings"]).output
    assert 'target-version = "1.0.42"' in out and "the skyvern pin in" in out and "requirements.txt" in out
    out = CliRunner().invoke(main, ["check", "--show-settings", "--target-version", "1.0.55"]).output
    assert 'target-version = "1.0.55"' in out and "command line (--target-version)" in out


def test_wflint_schema_follows_the_pin(repo, monkeypatch):
    (repo / "requirements.txt").write_text("skyvern==1.0.46\n")
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["schema", "-o", "out"])
    assert result.exit_code == 0, result.output
    schema = json.loads((repo / "out" / "workflow-file.schema.json").read_text())
    assert "1.0.46" in schema["$id"]
    assert CliRunner().invoke(main, ["schema", "--check", "-o", "out"]).exit_code == 0
    assert CliRunner().invoke(main, ["schema", "--check", "-o", "out", "--target-version", "1.0.47"]).exit_code == 1


# --------------------------------------------------------------------------- the release table


def test_the_release_table_in_the_docs_is_the_models():
    text = (ROOT / "docs" / "releases.md").read_text()
    start = text.index("<!-- release table")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end of release table -->")
    assert text[start:end] == markdown_table()


def test_the_table_reads_each_difference_from_the_marks():
    assert any("`pdf_fill`" in d for d in differences("1.0.41", "1.0.42"))
    assert any("`split_pdf`, `email_inbox`" in d for d in differences("1.0.46", "1.0.47"))
    assert any("`version` now nullable" in d for d in differences("1.0.43", "1.0.44"))
    assert differences("1.0.40", "1.0.41") == []


# --------------------------------------------------------------------------- verdicts that depend on the release


def test_a_binary_file_carries_the_422_the_service_answers():
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    for name, stage in (("logo.yaml", "B"), ("logo.json", "A")):
        (d,) = check_bytes(data, name)
        assert d.code == "WF001" and d.service is not None
        assert (d.service.status, d.service.order[0]) == (422, stage)


def test_an_empty_update_body_was_a_500_before_1_0_47():
    body = '{"json_definition": null, "yaml_definition": ""}'
    for release, status in (("1.0.46", 500), ("1.0.47", 422)):
        (d,) = [x for x in check_text(body, "body.json", Config(target_version=release)) if x.service]
        assert (d.code, d.service.status) == ("WF010", status)


def test_version_1_routing_is_refused_from_1_0_44_only():
    text = ("title: t\nworkflow_definition:\n  version: 1\n  parameters: []\n  blocks:\n"
            "    - {block_type: wait, label: a, wait_sec: 1, next_block_label: b}\n"
            "    - {block_type: wait, label: b, wait_sec: 1}\n")
    assert [d.code for d in check_text(text, "f.yaml", Config(target_version="1.0.43")) if d.service] == []
    assert [d.code for d in check_text(text, "f.yaml", Config(target_version="1.0.44")) if d.service] == ["WF301"]
