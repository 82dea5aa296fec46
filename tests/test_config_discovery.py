"""``config.discover`` looks at a pyproject.toml's bytes before parsing it: a file that cannot
name a ``tool.wflint`` table is passed over without importing tomllib. These tests hold the
look-ahead to the answer of parsing every file, over the ways TOML can spell the table."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from wflint.project import config
from wflint.project.config import Config, ConfigError, discover


def _parsing_every_file(start: Path) -> Config:
    """What ``discover`` answered when it parsed every pyproject.toml (the reference)."""
    for d in [start.resolve(), *start.resolve().parents]:
        if (d / ".wflint.toml").is_file():
            return config.load(d / ".wflint.toml")
        pyproject = d / "pyproject.toml"
        if pyproject.is_file():
            try:
                data = tomllib.loads(pyproject.read_bytes().decode("utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError):
                continue
            tool = data.get("tool", {})
            if not isinstance(tool, dict) or "wflint" in tool:
                return config.load(pyproject)
    return Config()


def _outcome(find, start: Path) -> tuple[str, object]:
    try:
        found = find(start)
    except ConfigError as exc:
        return "error", str(exc)
    return "config", (found.select, found.ignore, found.source)


NAMING = [
    '[tool.wflint]\nselect = ["WF2"]\n',
    '[ tool . wflint ]\nselect = ["WF2"]\n',
    '[tool."wflint"]\nselect = ["WF2"]\n',
    "[tool.'wflint']\nselect = ['WF2']\n",
    '[tool]\nwflint.select = ["WF2"]\n',
    '[tool]\nwflint = {select = ["WF2"]}\n',
    'tool.wflint.select = ["WF2"]\n',
    'tool = {wflint = {select = ["WF2"]}}\n',
    '[tool."\\u0077flint"]\nselect = ["WF2"]\n',
    '[tool.wflint.per-file-ignores]\n"a/**" = ["WF213"]\n',
    "[[tool.wflint]]\nselect = ['ALL']\n",
    "[tool]\nwflint = 5\n",
    "tool = 5\n",
    '[tool.wflint]\nselect = "WF2"\n',
]
NOT_NAMING = [
    '[project]\nname = "wflint"\n',
    '[project]\nname = "wflint-flows"\n[tool.ruff]\nline-length = 100\n',
    "[tool.black]\n",
    "",
    "not toml at all [[[\n",
]


@pytest.mark.parametrize("text", NAMING + NOT_NAMING)
def test_discover_answers_as_parsing_every_pyproject(tmp_path, text):
    (tmp_path / "pyproject.toml").write_text(text, encoding="utf-8")
    assert _outcome(discover, tmp_path) == _outcome(_parsing_every_file, tmp_path)


@pytest.mark.parametrize("text", NAMING)
def test_every_spelling_of_the_table_is_read(text):
    assert config._MAY_NAME_WFLINT.search(text.encode())


@pytest.mark.parametrize("text", NOT_NAMING[1:])
def test_a_pyproject_without_the_table_is_not_parsed(text):
    assert not config._MAY_NAME_WFLINT.search(text.encode())


_KEY = st.sampled_from(["wflint", '"wflint"', "'wflint'", "tool", '"tool"', "ruff", "project", "name", "select"])
_GAP = st.sampled_from(["", " ", "\t"])
_VALUE = st.sampled_from(['["WF2"]', '"wflint"', "5", "{}", '{select = ["WF2"]}', "true"])


@st.composite
def _documents(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        dotted = draw(_GAP).join(draw(st.lists(_KEY, min_size=1, max_size=3)))
        gap = draw(_GAP)
        if draw(st.booleans()):
            lines.append(f"[{gap}{dotted.replace(' ', '')}{gap}]")
        lines.append(f"{dotted.replace(' ', '')}{gap}={gap}{draw(_VALUE)}")
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None)
@given(_documents())
def test_generated_documents_answer_as_parsing_every_pyproject(tmp_path_factory, text):
    where = tmp_path_factory.mktemp("p")
    (where / "pyproject.toml").write_text(text, encoding="utf-8")
    assert _outcome(discover, where) == _outcome(_parsing_every_file, where)
