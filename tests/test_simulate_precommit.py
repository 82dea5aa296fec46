"""The ``wflint-test`` pre-commit hook, run with the real ``pre-commit`` tool in a scratch git
repository (as ``repo: local`` with ``language: system``, as test_precommit.py does for the
check hook): it passes while the cases hold and fails, naming the case, when one does not."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from test_precommit import _git, _run

ROOT = Path(__file__).resolve().parent.parent
TEAM = ROOT / "fixtures" / "simulate" / "team" / "workflows"


def _config() -> str:
    hook = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "wflint-test")
    local = {**hook, "language": "system",
             "entry": f"{Path(sys.executable).with_name('wflint')} {hook['entry'].split(' ', 1)[1]}"}
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}, sort_keys=False)



def _repo_with_refund_request(tmp_path: Path) -> Path:
    """A git repository with the hook configured and the team's refund workflow and its tests."""
    repo = tmp_path / "repo"
    (repo / "workflows").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(_config())
    for name in ("refund_request.yaml", "refund_request.test.yaml"):
        (repo / "workflows" / name).write_text((TEAM / name).read_text())
    return repo

def test_the_test_hook_passes_then_fails_on_a_broken_expectation(tmp_path):
    repo = _repo_with_refund_request(tmp_path)
    _git(repo, "add", "-A")
    passed = _run(repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "wflint test" in passed.stdout and "Passed" in passed.stdout

    test_file = repo / "workflows" / "refund_request.test.yaml"
    test_file.write_text(test_file.read_text().replace("route_taken: refund", "route_taken: ask_manager"))
    _git(repo, "add", "-A")
    failed = _run(repo)
    assert failed.returncode == 1
    assert "small refund goes straight through" in failed.stdout
    assert "run outputs" in failed.stdout


def _run_staged(repo: Path):
    """``pre-commit run`` as a commit runs it: on the staged files only."""
    import os
    import subprocess

    from test_precommit import _pre_commit

    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home")}
    return subprocess.run([_pre_commit(), "run", "--verbose", "--color", "never"], cwd=repo,
                          capture_output=True, text=True, timeout=120, env=env)


def test_the_test_hook_runs_only_the_cases_of_the_staged_workflow_and_ignores_work_in_progress(tmp_path):
    repo = _repo_with_refund_request(tmp_path)
    tutorial = ROOT / "fixtures" / "simulate" / "tutorial"
    for name in ("lead_sync.yaml", "lead_sync.test.yaml"):
        (repo / "workflows" / name).write_text((tutorial / name).read_text())
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start", "--no-verify")

    workflow = repo / "workflows" / "lead_sync.yaml"
    workflow.write_text(workflow.read_text().replace("Sync hot leads", "Sync the hot leads"))
    _git(repo, "add", "workflows/lead_sync.yaml")
    # untracked work in progress: a broken test file and a failing one, neither staged
    (repo / "workflows" / "wip.test.yaml").write_text("workflow: lead_sync.yaml\ncases:\n  - name: wip\n    tsk: {}\n")
    (repo / "workflows" / "refund_request.test.yaml").write_text("cases:\n  - name: broken\n    expect: {status: failed}\n")
    staged = _run_staged(repo)
    assert staged.returncode == 0, staged.stdout + staged.stderr
    assert "lead_sync.test.yaml ." in staged.stdout
    assert "refund_request" not in staged.stdout and "wip" not in staged.stdout

    # a commit of files no test covers passes without running anything
    _git(repo, "commit", "-qm", "rename", "--no-verify")
    (repo / "notes.yaml").write_text("just: notes\n")
    _git(repo, "add", "notes.yaml")
    unrelated = _run_staged(repo)
    assert unrelated.returncode == 0, unrelated.stdout + unrelated.stderr
    assert "no test file for the changed files" in unrelated.stdout


def test_changed_runs_a_tracked_test_file_that_names_the_changed_workflow_elsewhere(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from wflint.cli import main

    repo = tmp_path / "repo"
    (repo / "flows").mkdir(parents=True)
    (repo / "tests").mkdir()
    _git(repo, "init", "-q")
    (repo / "flows" / "refund.yaml").write_text((TEAM / "refund_request.yaml").read_text())
    tests = (TEAM / "refund_request.test.yaml").read_text()
    (repo / "tests" / "refund.test.yaml").write_text("workflow: ../flows/refund.yaml\n" + tests)
    _git(repo, "add", "-A")
    (repo / "tests" / "untracked.test.yaml").write_text("workflow: ../flows/refund.yaml\ncases: [{nme: x}]\n")
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["test", "--changed", "flows/refund.yaml", ".pre-commit-config.yaml"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.output.startswith("tests/refund.test.yaml ...") and "untracked" not in result.output
