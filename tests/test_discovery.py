"""Which files a run checks: recognition by content, globs relative to the config file with
gitignore semantics, exclude for named files, a safe walk, and the zero-file warning."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.api import check_paths
from wflint.cli import main
from wflint.project.config import Config

ROOT = Path(__file__).resolve().parent.parent
VALID = (ROOT / "fixtures" / "rules" / "WF001" / "ok_valid.yaml").read_text()
BROKEN = (ROOT / "fixtures" / "rules" / "WF101" / "bad_navigation_without_goal.yaml").read_text()

#: files of a real repository that are not workflows (the issue's list)
NOT_WORKFLOWS = {
    ".github/workflows/ci.yml": "name: ci\non: [push]\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make\n",
    "docker-compose.yml": "services:\n  web:\n    image: nginx\n",
    "k8s/app.yaml": "apiVersion: apps/v1\nkind: Deployment\nspec: {replicas: 2}\n---\napiVersion: v1\nkind: Service\n",
    "package.json": '{"name": "site", "version": "1.0.0"}\n',
    "tsconfig.json": '{\n  // comment\n  "compilerOptions": {"strict": true,},\n}\n',
    "mkdocs.yml": "site_name: Docs\nmarkdown_extensions:\n  - pymdownx.superfences:\n      custom_fences:\n"
                  "        - name: mermaid\n          format: !!python/name:pymdownx.superfences.fence_code_format\n",
    "renovate.json": '{"extends": ["config:recommended"]}\n',
    ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks: []\n",
}


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def write(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    write(tmp_path, NOT_WORKFLOWS)
    write(tmp_path, {"workflows/orders.yaml": VALID, "workflows/broken.yaml": BROKEN,
                     "workflows/drafts/wip.yaml": BROKEN, ".wflint.toml": 'exclude = ["drafts/"]\n'})
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_non_workflow_files_named_by_the_hook_give_nothing(repo):
    r = run("check", "--format", "concise", "--skip-non-workflows", *NOT_WORKFLOWS)
    assert (r.exit_code, r.stdout) == (0, "")
    assert "no workflow files found: 0 files checked, 8 skipped" in r.stderr


def test_dot_and_absolute_path_report_the_same(repo):
    dot = run("check", "--format", "concise", ".")
    absolute = run("check", "--format", "concise", str(repo))
    assert dot.exit_code == absolute.exit_code == 1
    assert dot.stdout == absolute.stdout
    assert dot.stdout.startswith("workflows/broken.yaml:5:7: WF101") and "drafts" not in dot.stdout


def test_exclude_holds_for_named_files_and_at_any_depth(repo):
    r = run("check", "--format", "concise", "workflows/drafts/wip.yaml", str(repo / "workflows" / "drafts" / "wip.yaml"))
    assert (r.exit_code, r.stdout) == (0, "")
    listing = run("check", "--show-files", "workflows/drafts/wip.yaml").stdout
    assert "skipped  workflows/drafts/wip.yaml  (excluded by the configuration's exclude)" in listing


def test_globs_are_relative_to_the_config_file_not_the_working_directory(repo, monkeypatch):
    (repo / ".wflint.toml").write_text('exclude = ["/workflows/broken.yaml"]\n')
    monkeypatch.chdir(repo / "workflows")
    r = run("check", "--format", "concise", "--config", str(repo / ".wflint.toml"), "broken.yaml", ".")
    assert r.exit_code == 1 and "broken.yaml" not in r.stdout and "drafts/wip.yaml" in r.stdout


def test_show_files_says_why(repo):
    out = run("check", "--show-files").stdout
    assert "checked  workflows/orders.yaml  (a request (workflow_definition at the top))" in out
    assert "skipped  package.json  (not a workflow: no workflow key at the top (has name, version))" in out
    assert "skipped  tsconfig.json  (not a workflow: it does not parse and holds no workflow key)" in out
    assert "skipped  workflows/drafts/  (excluded by the configuration's exclude)" in out
    assert ".github" not in out  # hidden directories are not walked


def test_verbose_lists_files_on_stderr_and_findings_on_stdout(repo):
    r = run("check", "--verbose", "--format", "concise", "--skip-non-workflows", "workflows/orders.yaml", "package.json")
    assert r.stdout == "" and "checked  workflows/orders.yaml" in r.stderr and "skipped  package.json" in r.stderr


def test_gitignored_files_are_skipped_unless_asked(repo):
    (repo / ".gitignore").write_text("generated/\n")
    write(repo, {"generated/out.yaml": BROKEN})
    assert "generated" not in run("check", "--format", "concise").stdout
    assert "skipped  generated/  (ignored by .gitignore)" in run("check", "--show-files").stdout
    assert "generated/out.yaml:5:7" in run("check", "--format", "concise", "--no-respect-gitignore").stdout


@pytest.mark.parametrize("text, why", [
    ("title: t\nworkflow_defintion:\n  parameters: []\n  blocks: []\n", "looks like a misspelt 'workflow_definition'"),
    ("parameters: []\nblocks: []\n", "a bare definition"),
    ("# yaml-language-server: $schema=../schemas/workflow-definition.schema.json\nname: x\n", "modeline"),
    ('{"yaml_definition": "title: t"}', "an update body"),
])
def test_workflows_are_recognised_by_content(tmp_path, text, why):
    f = tmp_path / "f.yaml"
    f.write_text(text)
    report = check_paths([f], Config())
    assert report.checked == [str(f)] and why in report.reasons[str(f)]


def test_a_misspelt_top_level_key_is_reported_with_a_suggestion(tmp_path):
    f = tmp_path / "typo.yaml"
    f.write_text("title: t\nworkflow_defintion:\n  parameters: []\n  blocks: []\n")
    r = run("check", "--format", "concise", str(f))
    assert r.exit_code == 1
    assert "WF013 [missing-wrapper] error: the definition is under 'workflow_defintion'" in r.stdout
    assert "rename 'workflow_defintion' to workflow_definition" in r.stdout


def test_include_declares_files_workflows_whatever_they_hold(tmp_path, monkeypatch):
    write(tmp_path, {"flows/odd.yaml": "- not: a mapping\n", ".wflint.toml": 'include = ["flows/"]\n'})
    monkeypatch.chdir(tmp_path)
    r = run("check", "--format", "concise", "flows/odd.yaml")
    assert r.exit_code == 1 and "WF002" in r.stdout


def test_per_file_ignores(tmp_path, monkeypatch):
    write(tmp_path, {"legacy/a.yaml": BROKEN, "new/b.yaml": BROKEN,
                     ".wflint.toml": '[per-file-ignores]\n"legacy/**" = ["WF101"]\n'})
    monkeypatch.chdir(tmp_path)
    out = run("check", "--format", "concise").stdout
    assert "new/b.yaml:5:7: WF101" in out and "legacy" not in out


def test_bad_per_file_ignores_is_a_config_error(tmp_path, monkeypatch):
    write(tmp_path, {".wflint.toml": '[per-file-ignores]\n"x/**" = ["WF999"]\n'})
    monkeypatch.chdir(tmp_path)
    r = run("check")
    assert r.exit_code == 2 and "WF999" in r.stderr


def test_show_settings_prints_the_resolved_configuration(repo):
    r = run("check", "--show-settings", "--ignore", "WF213")
    assert r.exit_code == 0
    assert f"# settings from {repo / '.wflint.toml'}" in r.stdout
    assert 'exclude = ["drafts/"]' in r.stdout and 'ignore = ["WF213"]' in r.stdout
    assert f"# globs are relative to {repo}" in r.stdout


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "github", "sarif"])
def test_a_run_that_checks_no_file_says_so_in_every_format(tmp_path, fmt):
    (tmp_path / "package.json").write_text('{"name": "x"}')
    r = run("check", "--format", fmt, str(tmp_path))
    assert r.exit_code == 0  # as ruff for "no files found": a warning, not a failure (README)
    assert "wflint: warning: no workflow files found" in r.stderr


# ---------------------------------------------------------------------------- a safe walk


def test_a_dangling_symlink_is_reported_and_the_run_goes_on(tmp_path):
    write(tmp_path, {"ok.yaml": VALID})
    os.symlink("user@host.1234:1700000000", tmp_path / ".#ok.yaml")
    r = run("check", "--format", "concise", str(tmp_path))
    assert r.exit_code == 1
    assert r.stdout.count("\n") == 1 and "WF006 [unreadable-file] error:" in r.stdout and "does not exist" in r.stdout


def test_fifo_and_symlinks_out_of_the_tree_are_not_read(tmp_path):
    inside = tmp_path / "inside"
    write(inside, {"ok.yaml": VALID})
    write(tmp_path, {"outside/secret.yaml": BROKEN})
    os.mkfifo(inside / "pipe.yaml")  # reading it would block forever
    os.symlink("/dev/zero", inside / "zero.yaml")  # reading it would never end
    os.symlink(tmp_path / "outside" / "secret.yaml", inside / "out.yaml")
    r = run("check", "--show-files", str(inside))
    assert r.exit_code == 0
    assert "pipe.yaml  (not a regular file" in r.stdout
    assert "zero.yaml  (a symbolic link out of the walked directory" in r.stdout
    assert "out.yaml  (a symbolic link out of the walked directory" in r.stdout
    followed = run("check", "--format", "concise", "--follow-links", str(inside))
    assert "out.yaml:5:7: WF101" in followed.stdout and "zero.yaml" not in followed.stdout


@pytest.mark.skipif(sys.platform == "win32" or os.geteuid() == 0, reason="permissions do not bind root")
def test_an_unreadable_directory_is_a_finding_not_a_silent_pass(tmp_path):
    write(tmp_path, {"ok.yaml": VALID, "locked/flow.yaml": VALID})
    (tmp_path / "locked").chmod(0)
    try:
        r = run("check", "--format", "json", str(tmp_path))
    finally:
        (tmp_path / "locked").chmod(0o755)
    assert r.exit_code == 1
    assert [d["code"] for d in json.loads(r.stdout)] == ["WF006"]


def test_stdin_obeys_the_size_limit():
    r = run("check", "--format", "concise", "--limit", "file-bytes=100", "-", input=VALID * 10)
    assert r.exit_code == 1 and "WF006" in r.stdout and "too large to be a workflow definition" in r.stdout


def test_an_unreadable_directory_is_reported_whoever_runs_the_tests(tmp_path, monkeypatch):
    import wflint.project.discovery as discovery

    write(tmp_path, {"ok.yaml": VALID, "locked/flow.yaml": VALID})
    real_scandir = os.scandir

    def scandir(path):
        if Path(path).name == "locked":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    report = check_paths([tmp_path], Config())
    assert report.checked == [f"{tmp_path}/ok.yaml"]
    assert [(d.code, d.message) for d in report.diagnostics] == [
        ("WF006", f"cannot read directory {tmp_path}/locked: Permission denied")]


def test_a_file_that_vanishes_after_the_walk_is_reported_and_the_run_goes_on(tmp_path, monkeypatch):
    import wflint.api as api

    write(tmp_path, {"a.yaml": VALID, "b.yaml": VALID})
    real_read = api.read_limited

    def read(path, *limit):
        if path.name == "a.yaml":
            path.unlink()
        return real_read(path)

    monkeypatch.setattr(api, "read_limited", read)
    report = check_paths([tmp_path], Config(), jobs=1)
    assert report.checked == [f"{tmp_path}/b.yaml"]
    assert [d.code for d in report.diagnostics] == ["WF006"] and "No such file" in report.diagnostics[0].message


@pytest.mark.parametrize("text", [
    "definition:\n  steps: []\n",                      # another tool's key, close to json_definition
    '{"$schema": "x", "definitions": {}, "type": "object"}',  # a JSON Schema
    "parameters: {a: 1}\nsteps: []\n",
    "# yaml-language-server: $schema=https://json.schemastore.org/github-workflow.json\non: push\n",
])
def test_other_files_are_not_taken_for_workflows(tmp_path, text):
    f = tmp_path / "f.yaml"
    f.write_text(text)
    report = check_paths([f], Config(skip_non_workflows=True))
    assert report.checked == [] and report.skipped[0][1].startswith("not a workflow")
    walked = check_paths([tmp_path], Config())
    assert walked.checked == [] and walked.skipped[0][1].startswith("not a workflow")


def test_a_bare_definition_is_refused_and_checked_as_the_definition_of_a_request(tmp_path):
    f = tmp_path / "f.yaml"
    f.write_text("parameters: []\nblocks:\n  - block_type: navigation\n    label: go\n")
    diags = check_paths([f], Config()).diagnostics
    assert [(d.code, d.line) for d in diags] == [("WF013", 1), ("WF101", 3)] and "navigation_goal" in diags[1].message
    assert diags[0].service.status == 422 and diags[0].service.detail == "title: Field required; workflow_definition: Field required"


def test_gitignore_applies_from_every_level_of_the_repository_and_not_outside_one(repo, tmp_path_factory):
    (repo / ".gitignore").write_text("*.generated.yaml\n")
    (repo / "workflows" / ".gitignore").write_text("!keep.generated.yaml\n")
    write(repo, {"workflows/sub/x.generated.yaml": BROKEN, "workflows/keep.generated.yaml": BROKEN})
    out = run("check", "--format", "concise", "workflows/sub", "workflows").stdout
    assert "x.generated.yaml" not in out and "workflows/keep.generated.yaml:5:7" in out
    elsewhere = tmp_path_factory.mktemp("no_repo")
    write(elsewhere, {".gitignore": "*.yaml\n", "flow.yaml": BROKEN})
    assert check_paths([elsewhere], Config()).files_checked == 1


def test_an_ignored_directory_named_on_the_command_line_is_walked(repo):
    (repo / ".gitignore").write_text("generated/\n")
    write(repo, {"generated/out.yaml": BROKEN, "generated/.gitignore": "skip.yaml\n", "generated/skip.yaml": BROKEN})
    assert "generated" not in run("check", "--format", "concise", ".").stdout
    named = run("check", "--format", "concise", "generated").stdout
    assert "generated/out.yaml:5:7: WF101" in named and "skip.yaml" not in named


def test_every_published_workflow_schema_is_recognised_in_a_modeline(tmp_path):
    from wflint.model.schema import documents
    from wflint.workflow.recognize import SCHEMA_FILES

    assert set(SCHEMA_FILES) == {name for name in documents() if "script" not in name}
    for name in SCHEMA_FILES:
        f = tmp_path / "f.yaml"
        f.write_text(f"# yaml-language-server: $schema=../schemas/{name}\ntitle: draft\n")
        assert check_paths([f], Config()).files_checked == 1, name
