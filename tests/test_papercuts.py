"""The first-week papercuts of issue 35, each as a newcomer meets it: `check` says how many
findings `wflint fix` (and `--unsafe-fixes`) would fix; a run that passes with warnings says so
(what a `verbose: true` pre-commit hook shows); an export's output-parameter errors are grouped
under its one WF012, each still reachable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from wflint.cli import main
from wflint.fix import fix_text

ROOT = Path(__file__).resolve().parents[1]
EXPORT = ROOT / "fixtures" / "rules" / "WF012" / "bad_stored_definition.json"
DASH = ROOT / "fixtures" / "invalid" / "label_with_dash.json"
TYPO = ROOT / "fixtures" / "invalid" / "next_block_label_typo.json"
UNFIXABLE = ROOT / "fixtures" / "invalid" / "boolean_default_yes.json"
WARNINGS_ONLY = ROOT / "fixtures" / "exports" / "helpdesk_queue_triage.json"


def _check(*args: str):
    return CliRunner().invoke(main, ["check", "--color", "never", *args], catch_exceptions=False)


def _last_lines(r, n: int) -> list[str]:
    return r.stdout.rstrip("\n").splitlines()[-n:]


# ----------------------------------------------------------------------------- fixable counts

def test_the_summary_names_what_fix_and_unsafe_fixes_would_fix(tmp_path):
    for f in (DASH, TYPO, UNFIXABLE):
        shutil.copy(f, tmp_path / f.name)
    r = _check(str(tmp_path))
    assert r.exit_code == 1
    found, fixable = _last_lines(r, 2)
    assert found == "Found 3 problems (3 errors)."
    assert fixable == "1 fixable with `wflint fix` (1 more with `wflint fix --unsafe-fixes`)."


def test_the_counts_are_what_fix_then_removes(tmp_path):
    """Not a guess from rule codes: fix the files as `wflint fix` would and check again."""
    for f in (DASH, TYPO, UNFIXABLE):
        shutil.copy(f, tmp_path / f.name)
    safe = CliRunner().invoke(main, ["fix", str(tmp_path)], catch_exceptions=False)
    assert safe.exit_code == 0
    after_safe = _check(str(tmp_path))
    assert _last_lines(after_safe, 2) == ["Found 2 problems (2 errors).",
                                          "1 fixable with `wflint fix --unsafe-fixes` (no safe fix applies)."]
    CliRunner().invoke(main, ["fix", "--unsafe-fixes", str(tmp_path)], catch_exceptions=False)
    after_unsafe = _check(str(tmp_path))
    assert _last_lines(after_unsafe, 1) == ["Found 1 problem (1 error)."]  # WF502 "yes": no fix guesses it


def test_no_fix_line_when_nothing_is_fixable_and_none_for_machines(tmp_path):
    shutil.copy(UNFIXABLE, tmp_path / UNFIXABLE.name)
    r = _check(str(tmp_path))
    assert _last_lines(r, 1) == ["Found 1 problem (1 error)."] and "fixable with" not in r.output
    shutil.copy(DASH, tmp_path / DASH.name)
    for fmt in ("json", "sarif", "github"):
        assert "fixable with" not in _check("--format", fmt, str(tmp_path)).output, fmt
    assert "fixable with" not in _check("--quiet", str(tmp_path)).output


def test_standard_input_is_counted_from_what_was_read():
    r = CliRunner().invoke(main, ["check", "--color", "never", "--stdin-filename", "flow.json", "-"],
                           input=DASH.read_text(), catch_exceptions=False)
    assert _last_lines(r, 1) == ["1 fixable with `wflint fix`."]


def test_concise_names_the_fixable_count_after_its_verdict_on_stderr(tmp_path):
    """`concise` (the pre-commit hook's format) has no summary line: the count follows the
    verdict on standard error, which a failing hook shows."""
    for f in (DASH, TYPO):
        shutil.copy(f, tmp_path / f.name)
    r = _check("--format", "concise", str(tmp_path))
    assert "fixable with" not in r.stdout
    assert r.stderr.splitlines()[-2:] == [
        "wflint: 2 errors fail the run (fail-level: error).",
        "wflint: 1 fixable with `wflint fix` (1 more with `wflint fix --unsafe-fixes`)."]


# ----------------------------------------------------------------------------- passing with warnings

def test_a_run_that_passes_with_warnings_says_so():
    r = _check("--format", "concise", str(WARNINGS_ONLY))
    assert r.exit_code == 0
    # the export's conversion also gives its SMTP parameters their references back: all five go
    assert r.stderr.splitlines() == ["wflint: 5 warnings do not fail the run (fail-level: error).",
                                     "wflint: 5 fixable with `wflint fix`."]
    failing = _check("--format", "concise", "--fail-level", "warning", str(WARNINGS_ONLY))
    assert failing.exit_code == 1 and "5 warnings fail the run (fail-level: warning)" in failing.stderr


# ----------------------------------------------------------------------------- an export, grouped

def test_an_export_is_one_error_with_its_output_parameter_findings_under_it():
    r = _check("--format", "concise", str(EXPORT))
    codes = [line.split()[1] for line in r.stdout.splitlines() if ": WF" in line]
    assert codes == ["WF012", "WF101", "WF213"]  # no WF207/WF208 of their own
    head = r.stdout.splitlines()[0]
    assert "WF012 [stored-form] error:" in head  # the save is refused: the group's severity
    assert "its 4 output-parameter findings (2 WF207 reserved-parameter-key, 2 WF208 output-parameter-declared)" in head
    assert "--show-grouped" in head
    assert r.exit_code == 1


def test_the_grouped_findings_stay_reachable():
    data = json.loads(_check("--format", "json", str(EXPORT)).stdout)
    (head,) = [d for d in data if d["code"] == "WF012"]
    assert head["service_status"] == 422 and head["severity"] == "error"
    assert sorted(r["code"] for r in head["related"]) == ["WF207", "WF207", "WF208", "WF208"]
    assert all(r["line"] > 1 and r["message"] for r in head["related"])

    sarif = json.loads(_check("--format", "sarif", str(EXPORT)).stdout)
    (result,) = [x for x in sarif["runs"][0]["results"] if x["ruleId"] == "WF012"]
    assert len(result["relatedLocations"]) == 4
    assert result["relatedLocations"][0]["message"]["text"].startswith("WF20")

    shown = _check("--format", "concise", "--show-grouped", str(EXPORT))
    codes = [line.split()[1] for line in shown.stdout.splitlines() if ": WF" in line]
    assert codes.count("WF207") == 2 and codes.count("WF208") == 2
    assert "WF012 [stored-form] warning:" in shown.stdout  # the rule's own severity when alone


def test_a_finding_turned_off_is_not_grouped_or_counted():
    without_head = _check("--format", "concise", "--ignore", "WF012", str(EXPORT))
    codes = [line.split()[1] for line in without_head.stdout.splitlines() if ": WF" in line]
    assert codes.count("WF208") == 2  # nothing to group them under: shown as they are
    no_208 = _check("--format", "concise", "--ignore", "WF208", str(EXPORT))
    # the WF208s name the export's output parameters: without them no WF207 is taken for one
    codes = [line.split()[1] for line in no_208.stdout.splitlines() if ": WF" in line]
    assert codes.count("WF207") == 2 and "grouped" not in no_208.stdout


def test_a_hand_written_reserved_key_is_not_hidden_under_an_export(tmp_path):
    """WF207 is grouped only for the keys of the export's output parameters (the WF208 keys)."""
    data = json.loads(EXPORT.read_text())
    data["workflow_definition"]["parameters"].append(
        {"parameter_type": "workflow", "key": "current_date", "workflow_parameter_type": "string"})
    flow = tmp_path / "export.json"
    flow.write_text(json.dumps(data, indent=2))
    r = _check("--format", "concise", str(flow))
    own = [line for line in r.stdout.splitlines() if line.split()[1] == "WF207"]
    assert len(own) == 1 and "current_date" in own[0]


def test_fix_turns_the_export_into_a_request_and_the_group_counts_once():
    r = _check(str(EXPORT))
    assert _last_lines(r, 1)[0].startswith("3 fixable with `wflint fix`")
    fixed = fix_text(EXPORT.read_text(), str(EXPORT)).text
    assert '"output_parameter_id"' not in fixed


def test_the_commands_list_of_fixable_rules_is_the_fixers():
    from wflint.cli import FIX_ANSWERS
    from wflint.fix.counts import ANSWERED

    assert FIX_ANSWERS == ANSWERED
