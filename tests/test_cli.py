"""The command line: every output format, every exit code, stdin, selection, config."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.cli import main

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures" / "rules"
GOOD = FIX / "WF101" / "ok_complete.yaml"
BAD = FIX / "WF101" / "bad_navigation_without_goal.yaml"
WARN_ONLY = FIX / "WF213" / "bad_unused.yaml"


def shown(path: Path) -> str:
    """How the CLI reports a path: relative to the working directory when below it."""
    from wflint.project.discovery import shown_path

    return shown_path(path)


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_clean_file_exits_0():
    r = run("check", str(GOOD))
    assert r.exit_code == 0, r.output
    assert "WF" not in r.stdout


def test_findings_exit_1_and_full_format_shows_source_and_caret():
    r = run("check", str(BAD))
    assert r.exit_code == 1
    out = r.stdout
    assert f"{shown(BAD)}:5:7: WF101 [missing-field]" in out
    assert "   5 |     - block_type: navigation" in out
    assert "^" in out
    assert "Found 1 problem (1 error)." in out


def test_warnings_do_not_fail_by_default_but_do_with_fail_level():
    assert run("check", str(WARN_ONLY)).exit_code == 0
    assert run("check", "--fail-level", "warning", str(WARN_ONLY)).exit_code == 1


def test_concise_format_is_one_line_per_diagnostic():
    r = run("check", "--format", "concise", str(BAD))
    lines = r.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{shown(BAD)}:5:7: WF101 [missing-field] error: ")


def test_json_format_has_documented_keys():
    r = run("check", "--format", "json", str(FIX / "WF109" / "bad_typo.yaml"))
    data = json.loads(r.stdout)
    assert data and set(data[0]) >= {"path", "line", "column", "end_line", "end_column", "code", "name", "severity", "message"}
    d = data[0]
    assert (d["code"], d["line"], d["column"]) == ("WF109", 9, 7)
    assert d["help"] == "did you mean 'navigation_goal'?"
    assert d["end_column"] > d["column"]


def test_github_and_sarif_formats():
    r = run("check", "--format", "github", str(BAD))
    assert r.stdout.startswith("::error file=")
    assert ",line=5,col=7," in r.stdout
    r = run("check", "--format", "sarif", str(BAD))
    sarif = json.loads(r.stdout)
    result = sarif["runs"][0]["results"][0]
    assert result["ruleId"] == "WF101"
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 5


def test_stdin_with_filename_picks_the_format():
    text = BAD.read_text()
    r = run("check", "-", "--stdin-filename", "flow.yaml", "--format", "concise", input=text)
    assert r.exit_code == 1
    assert r.stdout.startswith("flow.yaml:5:7: WF101")


def test_select_and_ignore_by_code_prefix_and_name():
    r = run("check", "--format", "concise", "--ignore", "missing-field", str(BAD))
    assert r.exit_code == 0 and r.stdout == ""
    r = run("check", "--format", "concise", "--select", "WF2", str(BAD))
    assert r.stdout == ""
    r = run("check", "--format", "concise", "--select", "WF1", str(BAD))
    assert "WF101" in r.stdout


def test_unknown_selector_is_a_usage_error():
    r = run("check", "--select", "WF999", str(BAD))
    assert r.exit_code == 2
    assert "unknown rule selector" in r.stderr


def test_missing_path_is_a_usage_error():
    r = run("check", "does/not/exist.yaml")
    assert r.exit_code == 2
    assert "no such file" in r.stderr


def test_no_paths_means_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "flow.yaml").write_text(BAD.read_text())
    monkeypatch.chdir(tmp_path)
    r = run("check", "--format", "concise")
    assert r.exit_code == 1
    assert r.stdout.startswith("flow.yaml:5:7: WF101")


def test_directory_walk_takes_only_workflow_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "flow.yaml").write_text(BAD.read_text())
    (tmp_path / "other.yaml").write_text("name: not a workflow\nitems: [1, 2]\n")
    (tmp_path / "notes.txt").write_text("workflow_definition")
    r = run("check", "--format", "concise", str(tmp_path))
    assert r.exit_code == 1
    assert "flow.yaml" in r.stdout and "other.yaml" not in r.stdout


def test_a_named_non_workflow_file_is_checked_unless_the_hook_option_skips_it(tmp_path):
    f = tmp_path / "other.yaml"
    f.write_text("- just\n- a list\n")
    named = run("check", "--format", "concise", str(f))
    assert named.exit_code == 1 and "WF002 [not-a-mapping]" in named.stdout
    r = run("check", "--format", "concise", "--skip-non-workflows", str(f))
    assert r.exit_code == 0 and r.stdout == ""
    assert "no workflow files found: 0 files checked, 1 skipped" in r.stderr


@pytest.mark.parametrize("text", ["", "   \n", "# only a comment\n", "null\n", "hello\n", "{}\n",
                                  "- block_type: wait\n  label: w\n", "definition:\n  title: t\n"])
def test_a_named_empty_or_non_request_document_is_refused_with_the_services_status(tmp_path, text):
    f = tmp_path / "empty.yaml"
    f.write_text(text)
    r = run("check", "--format", "json", str(f))
    assert r.exit_code == 1
    statuses = [d.get("service_status") for d in json.loads(r.stdout)]
    assert any(s in (422, 500) for s in statuses), r.stdout


def test_standard_input_is_a_workflow_because_it_was_given(tmp_path):
    r = run("check", "--format", "concise", "--stdin-filename", "x.yaml", "-", input="")
    assert r.exit_code == 1 and "WF002" in r.stdout
    skipped = run("check", "--format", "concise", "--skip-non-workflows", "--stdin-filename", "x.yaml", "-", input="")
    assert skipped.exit_code == 0 and skipped.stdout == ""


def test_a_list_of_workflows_is_checked_and_reported_as_not_a_mapping(tmp_path):
    f = tmp_path / "other.yaml"
    f.write_text("- title: t\n  workflow_definition: {parameters: [], blocks: []}\n")
    r = run("check", "--format", "concise", str(f))
    assert r.exit_code == 1 and "WF002" in r.stdout


def test_config_file_is_read(tmp_path):
    cfg = tmp_path / "wflint.toml"
    cfg.write_text('ignore = ["WF101"]\n')
    assert run("check", "--config", str(cfg), str(BAD)).exit_code == 0
    cfg.write_text('fail-level = "loud"\n')
    r = run("check", "--config", str(cfg), str(BAD))
    assert r.exit_code == 2 and "fail-level" in r.stderr
    cfg.write_text("select = [\n")
    assert run("check", "--config", str(cfg), str(BAD)).exit_code == 2


def test_severity_override_from_config(tmp_path):
    cfg = tmp_path / "wflint.toml"
    cfg.write_text('[severity]\nWF213 = "error"\n')
    assert run("check", "--config", str(cfg), str(WARN_ONLY)).exit_code == 1


def test_internal_error_exits_3_without_traceback(monkeypatch):
    import wflint.api as api

    def boom(*a, **k):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(api, "check_paths", boom)
    r = CliRunner().invoke(main, ["check", str(GOOD)])
    assert r.exit_code == 3
    assert "internal error: kaboom" in r.stderr
    assert "Traceback" not in r.stderr


def test_rule_prints_docs_from_the_docstring():
    from wflint.rules import lookup

    r = run("rule", "WF201")
    assert r.exit_code == 0
    assert "WF201 duplicate-label (default severity: error)" in r.stdout
    assert lookup("WF201").doc.splitlines()[0] in r.stdout
    assert run("rule", "duplicate-label").stdout == r.stdout
    assert run("rule", "WF999").exit_code == 2
    listing = run("rule").stdout
    assert "WF001" in listing and "WF213" in listing


def test_schema_check_passes_on_committed_schemas():
    r = run("schema", "--check", "-o", str(ROOT / "schemas"))
    assert r.exit_code == 0, r.output


def test_schema_check_fails_when_stale(tmp_path):
    run("schema", "-o", str(tmp_path))
    assert run("schema", "--check", "-o", str(tmp_path)).exit_code == 0
    victim = tmp_path / "workflow-definition.schema.json"
    victim.write_text(victim.read_text().replace("navigation_goal", "navigation_gaol"))
    assert run("schema", "--check", "-o", str(tmp_path)).exit_code == 1


@pytest.mark.parametrize(
    "payload, code",
    [(b"\x00\x01\x02binary", "WF001"), (b"\xff\xfe\xfa garbage", "WF001"), (b"a: [" * 5000, "WF007"), (b"{" * 100000, "WF007")],
    ids=["nul-bytes", "invalid-utf8", "deep-yaml", "deep-json"],
)
def test_hostile_input_never_tracebacks(tmp_path, payload, code):
    f = tmp_path / "evil.yaml"
    f.write_bytes(payload)
    cfg = tmp_path / ".wflint.toml"
    cfg.write_text('include = ["evil.yaml"]\n')  # declared a workflow, whatever it holds
    r = subprocess.run([sys.executable, "-m", "wflint", "check", "--config", str(cfg), "--format", "concise", str(f)],
                       capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    assert code in r.stdout


def test_rule_docs_are_fresh():
    """docs/rules.md is generated from the docstrings; regenerate it with
    `wflint rule --markdown > docs/rules.md` when a rule changes."""
    expected = run("rule", "--markdown").stdout
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == expected
