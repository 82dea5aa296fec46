"""Hostile configuration and paths (issue 23): globs that cannot backtrack, configuration
shapes that end in exit 2 with a reason (never a traceback), and named paths that are not
regular files reported as WF006."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pathspec
import pytest

from wflint.project.config import Config
from wflint.project.discovery import discover
from wflint.project.globs import GlobTooComplex, compile_gitignore, compile_globs

SRC = Path(__file__).resolve().parents[1] / "src"
GOOD = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a, wait_sec: 1}\n"


def wflint(*args: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "wflint", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


# --------------------------------------------------------------------------- globs


def test_segment_globs_match_like_pathspec_except_where_git_differs():
    """Random patterns and paths: the same answers as pathspec's own translation, except a
    negated class matching '/', which git does not allow (and neither do we)."""
    rng = random.Random(23)
    compared = 0
    for _ in range(1500):
        pattern = "".join(rng.choice(["a", "b", "*", "?", "/", "[ab]", "**/", "\\*"]) for _ in range(rng.randint(1, 6)))
        try:
            reference = pathspec.GitIgnoreSpec.from_lines([pattern])
            ours = compile_globs([pattern])
        except (ValueError, GlobTooComplex):
            continue
        for _ in range(8):
            parts = "".join(rng.choice(["a", "b", "/", "ab", "ba", "*"]) for _ in range(rng.randint(1, 8))).split("/")
            path = "/".join(p for p in parts if p) or "a"
            assert ours.match_file(path) == reference.match_file(path), (pattern, path)
            compared += 1
    assert compared > 5000


def test_a_negated_class_never_matches_a_slash_as_in_git():
    assert not compile_globs(["?[!a]*"]).match_file("a/b")
    assert compile_globs(["?[!a]*"]).match_file("xb")


@pytest.mark.parametrize("pattern", ["**********a", "*a*a*a*a*a*a*a*a*b", "*[ab]*[ab]*[ab]*[ab]*c"])
def test_star_heavy_patterns_cost_a_scan(pattern):
    """`*a*a*a*a*b` took about a minute on one 250-character name; now microseconds."""
    spec = compile_globs([pattern])
    names = ["a" * 250 + ".yaml", "/".join(["ab" * 25] * 20) + ".yaml"]
    plain = compile_globs(["*.tmp"])
    t = time.perf_counter()
    for _ in range(50):
        for n in names:
            plain.match_file(n)
    baseline = time.perf_counter() - t
    t = time.perf_counter()
    for _ in range(50):
        for n in names:
            spec.match_file(n)
    assert time.perf_counter() - t < 50 * max(baseline, 1e-3)


def test_too_many_double_stars_or_characters_are_refused():
    with pytest.raises(GlobTooComplex):
        compile_globs(["**/a/**/b/**/c/**/d"])
    with pytest.raises(GlobTooComplex):
        compile_globs(["a" * 1001])
    spec, notes = compile_gitignore(["*.tmp", "**/a/**/b/**/c/**/d"])
    assert spec.match_file("x.tmp") and notes == ["line 2 ignored: pattern with 4 '**' segments (at most 3)"]


def test_a_hostile_gitignore_does_not_stall_the_walk(tmp_path):
    (tmp_path / ".git").mkdir()
    for i in range(20):
        (tmp_path / (f"{i}" + "a" * 200 + ".yaml")).write_text(GOOD)
    (tmp_path / ".gitignore").write_text("*.tmp\n")
    t = time.perf_counter()
    assert len(discover([tmp_path], Config()).candidates) == 20
    baseline = time.perf_counter() - t
    (tmp_path / ".gitignore").write_text("**********a\n*a*a*a*a*a*a*b\n**/x/**/y/**/z/**/w\n")
    t = time.perf_counter()
    found = discover([tmp_path], Config())
    assert time.perf_counter() - t < 20 * max(baseline, 0.05)
    assert len(found.candidates) == 20  # no name ends in 'a' or in 'b'
    assert any("line 3 ignored" in reason for _, reason in found.skipped)


# --------------------------------------------------------------------------- configuration


@pytest.mark.parametrize("name, text, reason", [
    (".wflint.toml", "a = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ("pyproject.toml", "[tool]\nwflint = 5\n", "must be a table, not a number"),
    ("pyproject.toml", "tool = 5\n", "'tool' must be a table"),
    ("pyproject.toml", "[[tool.wflint]]\nselect = ['ALL']\n", "must be a table, not an array"),
    (".wflint.toml", 'include = "flows/**"\n', "'include' must be a list of strings, e.g. include = [\"flows/**\"]"),
    (".wflint.toml", 'exclude = ["**/a/**/b/**/c/**/d"]\n', "4 '**' segments"),
])
def test_a_bad_configuration_is_exit_2_with_its_reason(tmp_path, name, text, reason):
    (tmp_path / name).write_text(text)
    (tmp_path / "flow.yaml").write_text(GOOD)
    r = wflint("check", "flow.yaml", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert reason in r.stderr
    assert "Traceback" not in r.stderr


# --------------------------------------------------------------------------- paths that are not files


def test_dev_zero_and_a_fifo_named_on_the_command_line_are_wf006(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    for target in ("/dev/zero", str(fifo)):
        r = wflint("check", "--format", "concise", target, cwd=tmp_path, timeout=60)
        assert r.returncode == 1, r.stderr
        assert "WF006" in r.stdout and "not a regular file" in r.stdout
