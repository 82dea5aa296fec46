"""Property tests over hostile input: whatever the bytes, the linter answers, quickly, the same
way twice, inside the file, and every output format renders it.

For any bytes, any JSON value, any YAML the service could be sent, and structured and
byte-level mutations of the fixture files (``fixtures/valid``, ``fixtures/invalid``):

* ``check_bytes``/``check_text`` never raise and end within ``BUDGET`` seconds;
* they are deterministic (the same findings twice);
* every position is inside the file (line within the file, column within the line + 1);
* every format renders: valid UTF-8, one line per finding in ``concise``, parseable JSON,
  SARIF, GitLab and JUnit XML, no raw control character in the human formats.

The default run is bounded (about half a minute). ``WFLINT_FUZZ=long`` runs twenty times the
examples (a few minutes); ``WFLINT_FUZZ=<n>`` multiplies by n.
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wflint.api import check_bytes, check_text
from wflint.document.source import decode
from wflint.report.formats import FORMATS
from wflint.rules import registry

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted(p for d in ("valid", "invalid") for p in (ROOT / "fixtures" / d).iterdir()
                  if p.suffix in (".yaml", ".yml", ".json"))

_SCALE = os.environ.get("WFLINT_FUZZ", "")
SCALE = 20 if _SCALE == "long" else int(_SCALE) if _SCALE.isdigit() else 1
#: seconds one check may take on these small inputs (generous: the machine is shared)
BUDGET = 5.0
#: what a human format must never print raw
_RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


def fuzz(examples: int):
    return settings(max_examples=examples * SCALE, deadline=None, derandomize=SCALE == 1,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ------------------------------------------------------------------------------ the properties


def assert_sound(data: bytes | str, path: str) -> list:
    """Check ``data`` twice and hold every property; return the findings."""
    check = check_bytes if isinstance(data, bytes) else check_text
    start = time.perf_counter()
    first = check(data, path)
    took = time.perf_counter() - start
    assert took < BUDGET, f"a check of {len(data)} {'bytes' if isinstance(data, bytes) else 'chars'} took {took:.1f} s"
    assert check(data, path) == first, "two checks of the same input differ"
    if isinstance(data, str):
        text = data
    else:  # a file that is not text is reported at a place in its bytes read leniently
        source = decode(data, path)[0]
        text = source.text if source is not None else data.decode("utf-8", "replace")
    lines = re.split(r"\r\n|\r|\n", text) if text else [""]
    for d in first:
        for line, column in ((d.line, d.column), (d.end_line, d.end_column)):
            assert 1 <= line <= len(lines), (d, len(lines))
            assert 1 <= column <= len(lines[line - 1]) + 1, (d, lines[line - 1][:200])
        assert (d.end_line, d.end_column) >= (d.line, d.column), d
    assert_renders(first, lines)
    return first


def assert_renders(diags: list, lines: list[str]) -> None:
    def line_of(path: str, n: int) -> str | None:
        return lines[n - 1] if 1 <= n <= len(lines) else None

    for name, render in FORMATS.items():
        out = render(diags, line_of, registry())
        out.encode("utf-8")  # strict: a lone surrogate would raise here
        if name in ("json", "sarif", "gitlab"):
            json.loads(out)
        elif name == "junit":
            ET.fromstring(out)
        elif name in ("concise", "github"):
            assert out.count("\n") == len(diags), out[:500]
        if name in ("concise", "full", "github"):
            bad = _RAW_CONTROL.search(out.replace("\n", "").replace("\t", ""))
            assert bad is None, f"{name} prints {bad.group()!r} raw"


# ------------------------------------------------------------------------------ inputs

_SUFFIXES = st.sampled_from(["f.yaml", "f.json", "f.yml", "f.txt"])


@fuzz(250)
@given(st.binary(max_size=2000), _SUFFIXES)
def test_any_bytes(data, path):
    assert_sound(data, path)


_hostile_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=40) | st.sampled_from(
    ["\ud800", "\udcff", "\x1b[2J", "a\nb", "\u2028", "\x85", "{{", "{% if %}", "{{ a.b | c }}", "-", "*a", "&a",
     "\x00", "ab-cd", "", " ", "1e999", "NaN"])
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _hostile_text,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_hostile_text, inner, max_size=5),
    max_leaves=30,
)


@fuzz(250)
@given(_json_values, st.booleans())
def test_any_json_value(value, wrap):
    if wrap:  # inside a request, where the rules look
        value = {"title": value, "workflow_definition": {"parameters": [], "blocks": [value]}}
    text = json.dumps(value, ensure_ascii=bool(wrap))
    assert_sound(text, "f.json")
    assert_sound(text.encode("utf-8", "surrogatepass"), "f.yaml")


_yaml_pieces = st.sampled_from([
    "title: t\n", "workflow_definition:\n", "  parameters: []\n", "  blocks:\n", "    - block_type: wait\n",
    "      label: a-b\n", "      wait_sec: 1\n", "      next_block_label: [x]\n", "&a ", "*a ", "<<: *a\n",
    "!!python/object ", "!!str ", "? [a]\n: b\n", "- ", "  ", "\t", "{", "}", "[", "]", ",", ":", "'", '"', "\\ud800",
    "|\n", ">-\n", "---\n", "...\n", "# wflint: disable=WF104\n", "{{ a }}", "{% for x in y %}", "\n", "yes", "0x1F",
    "7:30", "~", "\u2028", "\x85", "\x1b", "\r\n", "\r",
])


@fuzz(250)
@given(st.lists(_yaml_pieces, max_size=40))
def test_any_yaml_like_text(pieces):
    text = "".join(pieces)
    assert_sound(text, "f.yaml")
    assert_sound(text.encode("utf-8", "surrogatepass"), "f.yaml")


# ------------------------------------------------------------------------------ fixture mutations


def _load(path: Path):
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


_LOADED = {p: _load(p) for p in FIXTURES}


def _places(value, path=()):
    """(container, key) of every value in a tree."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield value, k
            yield from _places(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield value, i
            yield from _places(v, path + (i,))


_REPLACEMENTS = [None, True, 0, -1, 2**63, 1.5, float("inf"), "", "\ud800", "\x1b[31mred", "a\nb: c", "step-1",
                 "{{ missing_output }}", "{% if %}", "{{ " + "(" * 80 + "a" + ")" * 80 + " }}", [], {}, ["x"],
                 {"block_type": "for_loop", "label": "l", "loop_blocks": [{"label": "w", "wait_sec": 1}]},
                 {"block_type": "conditional", "label": "c", "branch_conditions": [{"next_block_label": ["x"]}]},
                 "x" * 5000]


def _mutate(tree, rng: random.Random, steps: int):
    for _ in range(steps):
        places = list(_places(tree))
        if not places:
            return tree
        container, key = rng.choice(places)
        action = rng.randrange(5)
        if action == 0:
            container[key] = copy.deepcopy(rng.choice(_REPLACEMENTS))
        elif action == 1 and isinstance(container, dict):
            del container[key]
        elif action == 2 and isinstance(container, list):
            container.insert(rng.randrange(len(container) + 1), copy.deepcopy(container[key]))
        elif action == 3 and isinstance(container[key], str):
            s = container[key]
            i = rng.randrange(len(s) + 1)
            container[key] = s[:i] + rng.choice(["-", "\ud800", "\x00", "{{", "}}", "_output", "\u2028", "é"]) + s[i:]
        elif action == 4 and isinstance(container, dict):
            container[rng.choice(["navigaton_goal", "label", "next_block_label", "loop_blocks", "parameter_keys",
                                  "version", "finally_block_label", "block_type"])] = copy.deepcopy(rng.choice(_REPLACEMENTS))
    return tree


@fuzz(300)
@given(st.sampled_from(FIXTURES), st.integers(0, 2**32), st.integers(1, 6), st.booleans())
def test_structured_mutations_of_fixtures(path, seed, steps, as_yaml):
    tree = _mutate(copy.deepcopy(_LOADED[path]), random.Random(seed), steps)
    text = json.dumps(tree, ensure_ascii=True)
    if as_yaml:
        try:
            text = yaml.safe_dump(tree, allow_unicode=True, sort_keys=False)
        except (yaml.YAMLError, UnicodeError):
            pass
    name = "f.yaml" if as_yaml else "f.json"
    assert_sound(text.encode("utf-8", "surrogatepass"), name)


@fuzz(200)
@given(st.sampled_from(FIXTURES), st.lists(st.tuples(st.integers(0, 10**6), st.binary(max_size=4), st.integers(0, 4)),
                                          min_size=1, max_size=6))
def test_byte_mutations_of_fixtures(path, edits):
    data = bytearray(path.read_bytes())
    for at, insert, delete in edits:
        i = at % (len(data) + 1)
        data[i : i + delete] = insert
    assert_sound(bytes(data), path.name)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_every_fixture_is_sound(path):
    assert_sound(path.read_bytes(), path.name)
