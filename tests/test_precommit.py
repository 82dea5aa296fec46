"""The README's pre-commit setup (also in docs/ci.md), run with the real ``pre-commit`` tool in a scratch git
repository that looks like a real one: it passes with valid workflows and fails on a broken
one only, naming it. The hook comes from the shipped ``.pre-commit-hooks.yaml`` (its entry
and file types), as ``repo: local`` with ``language: system`` so that the test needs no
network (the README says how the real snippet differs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from test_discovery import BROKEN, NOT_WORKFLOWS, VALID, write

ROOT = Path(__file__).resolve().parent.parent


def _pre_commit() -> str:
    exe = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    if not Path(exe).exists():
        pytest.skip("pre-commit is not installed (it is in the test extra)")
    return exe


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"})


def _config() -> str:
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    local = {**hook, "language": "system",
             "entry": f"{Path(sys.executable).with_name('wflint')} {hook['entry'].split(' ', 1)[1]}"}
    return yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}, sort_keys=False)


def _run(repo: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pre-commit-home")}
    return subprocess.run([_pre_commit(), "run", "--all-files", "--color", "never"], cwd=repo,
                          capture_output=True, text=True, timeout=120, env=env)


def test_hook_passes_on_valid_workflows_and_fails_only_on_the_broken_one(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    write(repo, {**NOT_WORKFLOWS, ".pre-commit-config.yaml": _config(), ".wflint.toml": 'exclude = ["drafts/"]\n',
                 "workflows/orders.yaml": VALID, "workflows/typo_free.json": '{"title": "t", "workflow_definition": '
                 '{"parameters": [], "blocks": []}}\n', "workflows/drafts/wip.yaml": BROKEN,
                 "workflows/drafts/wip2.yaml": "title: [\n"})
    _git(repo, "add", "-A")
    passed = _run(repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "wflint" in passed.stdout and "Passed" in passed.stdout

    write(repo, {"workflows/broken.yaml": BROKEN})
    _git(repo, "add", "-A")
    failed = _run(repo)
    assert failed.returncode == 1
    findings = [line for line in failed.stdout.splitlines() if ": WF" in line]
    assert findings == [line for line in findings if line.startswith("workflows/broken.yaml:")] and findings
    assert "no workflow files found" not in failed.stdout  # one run over all files, not batches


@pytest.mark.release
def test_the_readme_snippet_as_written_with_this_repository_as_the_repo(tmp_path):
    """The README's snippet itself: pre-commit clones this repository at the current commit
    and installs it with the shipped .pre-commit-hooks.yaml (needs the package index)."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    from readme_snippets import code_blocks

    snippet = code_blocks("Add it to your repository", "yaml")[0]  # the README's, as written
    assert "rev: v0.2.0" in snippet and "https://github.com/your-org/wflint" in snippet
    # the rev `pre-commit autoupdate --freeze` writes here (see the autoupdate test below)
    config = snippet.replace("https://github.com/your-org/wflint", str(ROOT)).replace("rev: v0.2.0", f"rev: {head}")
    write(repo, {**NOT_WORKFLOWS, ".pre-commit-config.yaml": config, ".wflint.toml": 'exclude = ["drafts/"]\n',
                 "workflows/orders.yaml": VALID, "workflows/drafts/wip.yaml": BROKEN})
    _git(repo, "add", "-A")
    passed = _run(repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    write(repo, {"workflows/broken.yaml": BROKEN})
    _git(repo, "add", "-A")
    failed = _run(repo)
    findings = [line for line in failed.stdout.splitlines() if ": WF" in line]
    assert failed.returncode == 1 and findings and all(f.startswith("workflows/broken.yaml:") for f in findings)


# ------------------------------------------------------------------ the rev, and warnings on a pass

def _snippet() -> str:
    from readme_snippets import code_blocks

    return code_blocks("Add it to your repository", "yaml")[0]


def _clone_of_this_repository(tmp_path: Path, tag: str | None) -> Path:
    """A clone of this repository's current commit with no tags, or with one tag on it (what a
    copy of it holds: a mirror made without tags, or a tagged release)."""
    upstream = tmp_path / "upstream"
    subprocess.run(["git", "clone", "-q", "--no-tags", str(ROOT), str(upstream)],  # local: hard links, fast
                   check=True, capture_output=True)
    for t in subprocess.run(["git", "tag"], cwd=upstream, capture_output=True, text=True).stdout.split():
        _git(upstream, "tag", "-d", t)
    if tag:
        _git(upstream, "tag", tag)
    return upstream


@pytest.mark.parametrize("tag", [None, "v9.9.9"], ids=["without-tags", "with-a-tag"])
def test_autoupdate_freeze_pins_the_snippets_rev_in_a_clone_with_or_without_tags(tmp_path, tag):
    """The README's snippet as written, with a copy of this repository as its `repo`, then
    `pre-commit autoupdate --freeze` as the README says: `rev` becomes a commit id either way
    (with `# frozen: <tag>` where the copy has a tag), and pre-commit accepts the hooks there."""
    upstream = _clone_of_this_repository(tmp_path, tag)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=upstream, capture_output=True, text=True,
                            check=True).stdout.strip()
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(_snippet().replace("https://github.com/your-org/wflint", f"file://{upstream}"))
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    r = subprocess.run([_pre_commit(), "autoupdate", "--freeze"], cwd=repo, capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    config = (repo / ".pre-commit-config.yaml").read_text()
    rev_line = next(line for line in config.splitlines() if line.strip().startswith("rev:"))
    assert rev_line.split()[1] == commit
    assert (f"# frozen: {tag}" in rev_line) if tag else ("frozen" not in rev_line)
    hooks = yaml.safe_load(config)["repos"][0]["hooks"]
    assert hooks[0]["id"] == "wflint" and hooks[0]["verbose"] is True


WARNING_ONLY = """title: orders
workflow_definition:
  parameters:
    - {parameter_type: workflow, key: unused_key, workflow_parameter_type: string}
  blocks:
    - {block_type: wait, label: pause, wait_sec: 1}
"""


@pytest.mark.parametrize("verbose", [True, False], ids=["verbose", "not-verbose"])
def test_warnings_show_on_a_passing_hook_with_verbose_as_the_snippet_has_it(tmp_path, verbose):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    config = yaml.safe_load(_config())
    if verbose:
        assert "verbose: true" in _snippet()  # the README's advice, applied to the hook under test
        config["repos"][0]["hooks"][0]["verbose"] = True
    write(repo, {".pre-commit-config.yaml": yaml.safe_dump(config, sort_keys=False), "workflows/orders.yaml": WARNING_ONLY})
    _git(repo, "add", "-A")
    r = _run(repo)
    assert r.returncode == 0, r.stdout + r.stderr
    shown = [line for line in r.stdout.splitlines() if ": WF213" in line]
    if verbose:
        assert shown and shown[0].startswith("workflows/orders.yaml:")
        assert "wflint: 1 warning does not fail the run (fail-level: error)." in r.stdout
    else:
        assert not shown and "do not fail" not in r.stdout and "does not fail" not in r.stdout
