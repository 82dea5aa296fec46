"""The default gate stops a misspelt field: the README's pre-commit hook (as
``test_precommit`` runs it, with the real ``pre-commit`` tool) fails a commit whose only
mistake is ``navigaton_goal`` in a task block and names it, and ``wflint check`` exits 1 on it, while a key
with no near match stays a warning that passes."""

from __future__ import annotations

from test_discovery import NOT_WORKFLOWS, write
from test_precommit import _config, _git, _run

from wflint.api import check_text

VALID = """\
title: Open pricing
workflow_definition:
  parameters: []
  blocks:
    - block_type: task
      label: open_pricing
      url: https://example.com
      navigation_goal: Open the pricing page
"""
MISSPELT = VALID.replace("navigation_goal", "navigaton_goal")
UNKNOWN = VALID + "      owner: growth-team\n"


def test_the_fixture_pair_differs_by_the_misspelling_only():
    assert "navigation_goal" in VALID and MISSPELT != VALID
    assert [d.code for d in check_text(VALID, "v.yaml") if d.severity == "error"] == []
    [d] = [d for d in check_text(MISSPELT, "m.yaml") if d.severity == "error"]
    assert (d.code, d.help) == ("WF109", "did you mean 'navigation_goal'?")
    assert [(d.code, d.severity) for d in check_text(UNKNOWN, "u.yaml")] == [("WF104", "warning")]


def test_the_hook_fails_a_commit_whose_only_mistake_is_a_misspelt_field(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    write(repo, {**NOT_WORKFLOWS, ".pre-commit-config.yaml": _config(), "workflows/orders.yaml": VALID,
                 "workflows/owned.yaml": UNKNOWN})
    _git(repo, "add", "-A")
    passed = _run(repo)
    assert passed.returncode == 0, passed.stdout + passed.stderr  # an unknown key is a warning

    write(repo, {"workflows/orders.yaml": MISSPELT})
    _git(repo, "add", "-A")
    failed = _run(repo)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    errors = [line for line in failed.stdout.splitlines() if ": WF" in line and " error: " in line]
    assert len(errors) == 1 and errors[0].startswith("workflows/orders.yaml:")
    assert "WF109 [misspelt-field]" in errors[0] and "'navigaton_goal'" in errors[0]
    assert "did you mean 'navigation_goal'?" in errors[0]
    assert "wflint: 1 error fails the run (fail-level: error); 1 warning does not." in failed.stdout


def test_the_summary_says_which_findings_failed_the_run():
    from wflint.report.statistics import gate_summary

    found = check_text(MISSPELT + "      owner: growth-team\n", "m.yaml")
    assert sorted(d.severity for d in found) == ["error", "warning"]
    assert gate_summary(found, "error") == "1 error fails the run (fail-level: error); 1 warning does not."
    assert gate_summary(found, "warning") == "1 error, 1 warning fail the run (fail-level: warning)."
    assert gate_summary([d for d in found if d.severity == "warning"], "error") is None
