"""The reporting options of `wflint check`: --exit-zero, --output-file, --statistics, --quiet,
--color (with NO_COLOR and FORCE_COLOR, on a real terminal) and the progress line."""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.cli import main
from wflint.report import color, progress, statistics

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "fixtures" / "rules"
CLEAN = FIX / "WF104" / "ok_known_fields.yaml"
TYPO = FIX / "WF104" / "bad_unknown_key.yaml"
MISSING = FIX / "WF101" / "bad_navigation_without_goal.yaml"
UNUSED = FIX / "WF213" / "bad_unused.yaml"
ANSI = "\x1b["


@pytest.fixture(autouse=True)
def _no_color_env(monkeypatch):
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_exit_zero_keeps_the_report_but_exits_0():
    r = run("check", "--exit-zero", "--format", "concise", str(MISSING))
    assert r.exit_code == 0 and "WF101" in r.stdout
    assert run("check", "--exit-zero", "does/not/exist.yaml").exit_code == 2


def test_output_file_gets_the_report_and_the_terminal_a_summary(tmp_path):
    out = tmp_path / "reports" / "wflint.json"  # a missing folder is created
    r = run("check", "--format", "json", "--output-file", str(out), str(MISSING), str(TYPO), str(CLEAN))
    assert r.exit_code == 1
    assert r.stdout == ""
    assert r.stderr.strip() == f"Found 2 problems (1 error, 1 warning) in 3 files. Report written to {out}."
    assert {d["code"] for d in json.loads(out.read_text(encoding="utf-8"))} == {"WF101", "WF104"}
    r = run("check", "-o", str(out), "--quiet", "--format", "json", str(CLEAN))
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == ""
    assert json.loads(out.read_text()) == []


def test_output_file_in_a_human_format_has_no_colour(tmp_path):
    out = tmp_path / "report.txt"
    run("check", "-o", str(out), str(MISSING), env={"FORCE_COLOR": ""})
    text = out.read_text()
    assert "WF101" in text and ANSI not in text and "Found 1 problem" in text


def test_output_file_that_cannot_be_written_is_a_usage_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = run("check", "-o", str(blocker / "report.json"), str(MISSING))
    assert r.exit_code == 2 and "cannot write the report" in r.stderr


def test_statistics_counts_per_rule(tmp_path):
    dup = tmp_path / "two.yaml"
    dup.write_text(TYPO.read_text().replace("owner", "owner: x\n      owner_team"))
    r = run("check", "--statistics", str(dup), str(MISSING), str(UNUSED))
    assert r.exit_code == 1
    rows = r.stdout.splitlines()
    assert rows[0].split() == ["2", "WF104", "unknown-field", "warning"]
    assert sorted(row.split()[1] for row in rows[1:3]) == ["WF101", "WF213"]
    assert rows[-1] == "Found 4 problems from 3 rules."
    data = json.loads(run("check", "--statistics", "--format", "json", str(dup), str(MISSING)).stdout)
    assert data == [
        {"code": "WF104", "name": "unknown-field", "severity": "warning", "count": 2},
        {"code": "WF101", "name": "missing-field", "severity": "error", "count": 1},
    ]
    assert run("check", "--statistics", str(CLEAN)).stdout == ""
    assert "Found" not in run("check", "--statistics", "--quiet", str(dup)).stdout


def test_quiet_prints_findings_only():
    r = run("check", "--quiet", str(MISSING))
    assert "WF101" in r.stdout and "Found" not in r.stdout and r.stderr == ""
    r = run("check", "-q", str(CLEAN))
    assert r.exit_code == 0 and r.stdout == "" and r.stderr == ""
    assert "All checks passed (1 file)." in run("check", str(CLEAN)).stderr


@pytest.mark.parametrize("fmt", ["full", "concise"])
def test_color_always_and_never(fmt):
    painted = run("check", "--color", "always", "--format", fmt, str(MISSING)).stdout
    plain = run("check", "--color", "never", "--format", fmt, str(MISSING)).stdout
    assert ANSI in painted and ANSI not in plain
    assert _strip(painted) == plain


def test_color_is_for_human_formats_only():
    for fmt in ("json", "github", "sarif", "junit", "gitlab"):
        assert ANSI not in run("check", "--color", "always", "--format", fmt, str(MISSING)).stdout


def test_color_environment_variables():
    # CliRunner's output is not a terminal: auto means no colour unless forced
    assert ANSI not in run("check", str(MISSING)).stdout
    assert ANSI in run("check", str(MISSING), env={"FORCE_COLOR": "1"}).stdout
    assert ANSI not in run("check", str(MISSING), env={"FORCE_COLOR": "0"}).stdout
    assert ANSI not in run("check", str(MISSING), env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert ANSI in run("check", "--color", "always", str(MISSING), env={"NO_COLOR": "1"}).stdout


def _strip(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def _on_terminal(*args: str, env: dict[str, str]) -> str:
    """Run wflint with its standard output on a pseudo-terminal; what the terminal shows."""
    master, slave = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | env
    proc = subprocess.Popen([sys.executable, "-m", "wflint", *args], stdout=slave, stderr=subprocess.DEVNULL, env=full_env, cwd=ROOT)
    os.close(slave)
    chunks = []
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal closed: the process has ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait(timeout=60)
    os.close(master)
    return b"".join(chunks).decode("utf-8", errors="replace")


def test_color_auto_on_a_real_terminal():
    shown = _on_terminal("check", str(MISSING), env={"TERM": "xterm"})
    assert ANSI in shown and "WF101" in shown
    assert ANSI not in _on_terminal("check", str(MISSING), env={"TERM": "xterm", "NO_COLOR": "1"})
    assert ANSI not in _on_terminal("check", str(MISSING), env={"TERM": "dumb"})


def test_wants_color_decisions():
    tty, pipe = _Stream(True), _Stream(False)
    assert color.wants_color("auto", tty, {}) and not color.wants_color("auto", pipe, {})
    assert not color.wants_color("auto", None, {})
    assert color.wants_color("auto", pipe, {"FORCE_COLOR": "true"})
    assert not color.wants_color("auto", tty, {"NO_COLOR": "x"})
    assert color.wants_color("always", pipe, {"NO_COLOR": "1"}) and not color.wants_color("never", tty, {"FORCE_COLOR": "1"})


# ------------------------------------------------------------------------------- progress


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_appears_after_two_seconds_and_is_erased():
    stream, clock = _Stream(True), _Clock()
    with progress.Progress(stream, enabled=True, clock=clock) as bar:
        clock.now += 1.0
        bar.update(10, 300)
        assert stream.getvalue() == ""  # short runs show nothing
        clock.now += 1.5
        bar.update(150, 300)
        assert stream.getvalue().endswith("wflint: checked 150/300 files (2 s)")
        clock.now += 0.01
        bar.update(151, 300)  # redrawn at most ten times a second
        assert "151/300" not in stream.getvalue()
        clock.now += 0.2
        bar.update(300, 300)
        assert "300/300" in stream.getvalue()
    assert stream.getvalue().endswith("\r\x1b[K")


def test_progress_is_never_shown_off_a_terminal_in_ci_or_quiet():
    tty, pipe = _Stream(True), _Stream(False)
    assert progress.should_show(tty, {"TERM": "xterm"})
    assert not progress.should_show(pipe, {})
    assert not progress.should_show(tty, {"CI": "true"})
    assert not progress.should_show(tty, {}, quiet=True)
    assert not progress.should_show(tty, {"TERM": "dumb"})
    clock = _Clock()
    bar = progress.Progress(pipe, enabled=False, clock=clock)
    clock.now += 60
    bar.update(1, 2)
    bar.close()
    assert pipe.getvalue() == ""


def test_progress_follows_a_real_run(monkeypatch, tmp_path):
    """check_paths reports every file to the callback, in order, with the total."""
    from wflint.api import check_paths

    (tmp_path / "a.yaml").write_text(MISSING.read_text())
    (tmp_path / "notes.yaml").write_text("a: 1\n")
    calls = []
    check_paths([tmp_path], on_file=lambda *a: calls.append(a))
    assert [(Path(p).name, checked, done, total) for p, checked, done, total in calls] == [("a.yaml", True, 1, 2), ("notes.yaml", False, 2, 2)]


def test_files_summary_wording():
    assert statistics.files_summary([], 1) == "All checks passed (1 file)."
