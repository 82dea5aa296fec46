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


def test_the_test_hook_passes_then_fails_on_a_broken_expectation(tmp_path):
    repo = tmp_path / "repo"
    (repo / "workflows").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(_config())
    for name in ("refund_request.yaml", "refund_request.test.yaml"):
        (repo / "workflows" / name).write_text((TEAM / name).read_text())
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
