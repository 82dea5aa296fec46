"""A property of ``wflint diff``: a workflow against any reformatting of itself (YAML or JSON,
any indentation, line width, flow style, key order) is formatting only, never a change."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from wflint.api import inspect_bytes
from wflint.diff import diff_pairs
from wflint.diff.changes import FORMATTING, UNCHANGED
from wflint.diff.versions import Pair, Version

ROOT = Path(__file__).resolve().parent.parent


def _corpus() -> list[Path]:
    """Workflows whose data reads alike as YAML and JSON (no sanitizer renames, no dates)."""
    out = []
    for path in sorted([*ROOT.glob("fixtures/simulate/*.yaml"), *ROOT.glob("fixtures/graph/*.yaml"),
                        ROOT / "fixtures" / "diff" / "orders.yaml"]):
        if path.name.endswith(".test.yaml"):
            continue
        inspection = inspect_bytes(path.read_bytes(), str(path))
        wf = inspection.workflows[0] if inspection and inspection.workflows else None
        if wf is None or (wf.sanitized is not None and wf.sanitized.changed):
            continue
        try:
            json.dumps(yaml.safe_load(path.read_text()))
        except TypeError:
            continue
        out.append(path)
    return out


CORPUS = _corpus()


def _shuffled(value, rng: random.Random):
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {k: _shuffled(value[k], rng) for k in keys}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


reformat = st.fixed_dictionaries({
    "as_json": st.booleans(),
    "shuffle": st.booleans(),
    "sort_keys": st.booleans(),
    "indent": st.sampled_from([2, 4]),
    "width": st.sampled_from([20, 60, 1000]),
    "flow": st.sampled_from([False, None, True]),
    "seed": st.integers(0, 1000),
})


def _reformat(data, how) -> tuple[str, str]:
    if how["shuffle"]:
        data = _shuffled(data, random.Random(how["seed"]))
    if how["as_json"]:
        return ".json", json.dumps(data, indent=how["indent"], sort_keys=how["sort_keys"], ensure_ascii=False)
    return ".yaml", yaml.safe_dump(data, indent=how["indent"], width=how["width"], sort_keys=how["sort_keys"],
                                   default_flow_style=how["flow"], allow_unicode=True)


def test_the_corpus_is_not_empty():
    assert len(CORPUS) >= 10


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(how=reformat)
def test_a_reformatted_workflow_is_formatting_only(path, how):
    text = path.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    suffix, reformatted = _reformat(data, how)
    # PyYAML's emitter can write a text it then reads otherwise (a narrow width folds a
    # double-quoted string with an escaped line break and indentation into another string): that
    # is a real change, and the diff says so; a reformatting keeps the data
    assume(yaml.safe_load(reformatted) == data)
    pair = Pair(Version(str(path), text.encode()), Version("reformatted" + suffix, reformatted.encode()))
    [d] = diff_pairs([pair], run_cases=False)
    assert d.status in (FORMATTING, UNCHANGED), (d.status, d.structure, reformatted)
    assert d.structure is not None and d.structure.empty
    assert d.introduced == [] or {x.code for x in d.introduced} <= {"WF004"}, [x.message for x in d.introduced]
