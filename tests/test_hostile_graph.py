"""Hostile names in pictures (issue 23): the Markdown comment cannot be broken out of, lone
surrogates are escaped, and --out keeps a slash's meaning and never writes through a link."""

from __future__ import annotations

import os
import re
from pathlib import Path

from click.testing import CliRunner

from wflint.cli import main

ROOT = Path(__file__).resolve().parent.parent
GRAPH = ROOT / "fixtures" / "graph"
FLOW = "title: {title}\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {{block_type: wait, label: a, wait_sec: 1}}\n"
BAD = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a-b, wait_sec: 1}\n"


def run(*args: str):
    return CliRunner().invoke(main, ["graph", *args])


def code_spans_closed(markdown: str) -> bool:
    """Every inline code span on a non-fenced line closes with a fence of its own length."""
    for line in markdown.splitlines():
        if line.startswith("```"):
            continue
        rest = line
        while True:
            m = re.search(r"`+", rest)
            if m is None:
                break
            fence = m.group()
            close = re.search(rf"(?<!`){fence}(?!`)", rest[m.end():])
            if close is None:
                return False
            rest = rest[m.end() + close.end():]
    return True


def test_a_file_name_with_backticks_stays_inside_its_code_span(tmp_path):
    name = "x`<img src=x onerror=alert(1)>``.yaml"
    (tmp_path / name).write_text(BAD)
    r = run(str(tmp_path / name), "--format", "markdown")
    assert r.exit_code == 0, r.output
    heading = next(line for line in r.stdout.splitlines() if line.startswith("### "))
    assert heading.startswith("### ```") and "``" in heading
    assert code_spans_closed(r.stdout)
    # the name sits inside a span fenced with three backticks, longer than its run of two
    assert f"```{tmp_path / name}```" in r.stdout.replace(" ```", "```")


def test_mentions_in_titles_and_messages_mention_nobody(tmp_path):
    f = tmp_path / "flow.yaml"
    f.write_text(FLOW.format(title="ping @team and @octocat"))
    r = run(str(f), "--format", "markdown")
    assert r.exit_code == 0, r.output
    prose = re.sub(r"```mermaid\n.*?```\n", "", r.stdout, flags=re.DOTALL)  # code blocks mention nobody
    assert "@team" not in prose and "@\u200bteam" in prose


def test_a_lone_surrogate_label_is_escaped_not_an_internal_error(tmp_path):
    f = tmp_path / "flow.yaml"
    f.write_text(FLOW.format(title='"\\ud800 title"').replace("label: a", 'label: "\\udfff"'))
    for fmt in ("mermaid", "dot", "markdown"):
        r = run(str(f), "--format", fmt)
        assert r.exit_code in (0, 1), (fmt, r.output)
        assert "\\ud800" in r.stdout, fmt


def test_out_with_a_slash_is_a_directory_created_if_missing(tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text(FLOW.format(title="One"))
    r = run(str(one), "--format", "dot", "-o", str(tmp_path / "newdir") + "/")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "newdir").is_dir() and (tmp_path / "newdir" / "one.dot").is_file()


def test_several_pictures_into_a_missing_directory(tmp_path):
    """Issue 22's papercut: `wflint graph flows/ --format dot -o pictures/` with no pictures/."""
    r = run(str(GRAPH), "--format", "dot", "-o", str(tmp_path / "pictures") + "/")
    assert r.exit_code == 0, r.output
    assert len(list((tmp_path / "pictures").glob("*.dot"))) >= 2
    r = run(str(GRAPH), "--format", "dot", "-o", str(tmp_path / "more"))
    assert r.exit_code == 0, r.output
    assert (tmp_path / "more").is_dir()


def test_a_planted_symlink_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    pictures = tmp_path / "pictures"
    pictures.mkdir()
    one = tmp_path / "one.yaml"
    one.write_text(FLOW.format(title="One"))
    (pictures / "one.dot").symlink_to(victim)
    r = run(str(one), "--format", "dot", "-o", str(pictures) + "/")
    assert r.exit_code == 0, r.output
    assert victim.read_text() == "precious\n"
    assert not (pictures / "one.dot").is_symlink() and "digraph" in (pictures / "one.dot").read_text()
    assert oct((pictures / "one.dot").stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert [p.name for p in pictures.iterdir()] == ["one.dot"]  # no temporary file left


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
