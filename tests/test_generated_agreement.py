"""The generated differential harness (tools/engine/workflow_gen.py, tools/engine/differential.py).

Default suite: the generator covers what it claims (deterministically for a seed) and the scorer
finds a disagreement where there is one. ``pytest -m engine``: a bounded sample of generated
workflows runs on the real 1.0.56 engine and on the simulator; the big run is the script
(``python tools/engine/differential.py --seed 30 --workflows 300 --cases 7``, README figures).
"""

from __future__ import annotations

import copy
import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools" / "engine"))

import differential  # noqa: E402
import oracle  # noqa: E402
import workflow_gen  # noqa: E402

SAMPLE_SEED = int(os.environ.get("WFLINT_GENERATED_SEED", "11"))


def _blocks(cases):
    seen = {}
    for c in cases:
        seen.setdefault(json.dumps(c["workflow"], sort_keys=True), c["workflow"])
    return list(seen.values()), [b for w in seen.values() for b in workflow_gen._all_blocks(w["workflow_definition"]["blocks"])]


def test_the_generator_is_deterministic_for_a_seed():
    assert workflow_gen.generate(5, 8, 2) == workflow_gen.generate(5, 8, 2)
    assert workflow_gen.generate(5, 8, 2) != workflow_gen.generate(6, 8, 2)


def test_the_generator_covers_the_catalogue_it_claims():
    cases = workflow_gen.generate(30, 300, 1)
    workflows, blocks = _blocks(cases)
    kinds = Counter(b["block_type"] for b in blocks)
    assert set(kinds) >= {"code", "text_prompt", "http_request", "wait", "terminate", "conditional",
                          "for_loop", "while_loop", *workflow_gen.TASK_TYPES}
    definitions = [w["workflow_definition"] for w in workflows]
    assert any(d.get("version") == 2 for d in definitions)
    assert any("version" not in d and any(b.get("next_block_label") for b in d["blocks"]) for d in definitions)
    assert any("version" not in d and not any(b.get("next_block_label") for b in d["blocks"]) for d in definitions)
    assert any(d.get("finally_block_label") for d in definitions)
    nested = [b for b in blocks if b["block_type"] in ("for_loop", "while_loop")
              and any(c["block_type"] in ("for_loop", "while_loop", "conditional") for c in b["loop_blocks"])]
    assert nested, "loops nest loops and conditionals"
    params = {p["workflow_parameter_type"] for d in definitions for p in d["parameters"]}
    assert params == set(workflow_gen.PARAM_TYPES)
    tasks = [b for b in blocks if b["block_type"] in workflow_gen.TASK_TYPES]
    assert any("url" in b for b in tasks) and any("url" not in b for b in tasks)
    assert any(b.get("url") == "website_url" for b in tasks), "a url that is a parameter key"
    assert any("{{" in str(b.get("code", "")) for b in blocks), "templates over earlier outputs"
    stubs = [c["case"] for c in cases]
    assert any(len(v) > 1 for s in stubs for v in (s.get("tasks") or {}).values()), "retries"
    assert any(s.get("prompt_branches") for s in stubs) and any(s.get("blocks") for s in stubs)


def test_a_shrinking_step_drops_one_block_or_one_stub():
    case = workflow_gen.generate(30, 3, 1)[1]
    before = len(workflow_gen._all_blocks(case["workflow"]["workflow_definition"]["blocks"]))
    for smaller in workflow_gen.variants(case):
        after = len(workflow_gen._all_blocks(smaller["workflow"]["workflow_definition"]["blocks"]))
        dropped_stub = sum(map(len, (v for v in smaller["case"].values() if isinstance(v, dict)))) < \
            sum(map(len, (v for v in case["case"].values() if isinstance(v, dict))))
        assert after < before or dropped_stub


def test_the_scorer_counts_agreement_and_reports_a_disagreement():
    sim = differential.Simulator()
    cases = workflow_gen.generate(3, 4, 2)
    traces = {c["name"]: sim.run(c) for c in cases}
    report = differential.score(cases, traces, sim)
    assert report["exact"] == report["cases"] == len(cases) and report["workflows"] == 4
    changed = copy.deepcopy(traces)
    first = cases[0]["name"]
    changed[first]["status"] = "no such status"
    report = differential.score(cases, changed, sim)
    assert report["exact"] == len(cases) - 1
    assert [d["case"] for d in report["disagreements"]] == [first]
    assert "status" in report["disagreements"][0]["dimensions"]


@pytest.mark.engine
def test_a_generated_sample_agrees_with_the_real_engine(tmp_path):
    if not oracle.available():
        pytest.skip(oracle.why_unavailable())
    cases = workflow_gen.generate(SAMPLE_SEED, 30, 3)
    real = differential.run_engine(cases, None, 250, sys.stderr)
    report = differential.score(cases, real, differential.Simulator())
    (tmp_path / "generated-agreement.json").write_text(json.dumps(report, indent=1, default=str))
    print(f"\ngenerated sample (seed {SAMPLE_SEED}): exact {report['exact']}/{report['cases']}; "
          f"details {tmp_path / 'generated-agreement.json'}")
    assert len(report["harness_errors"]) <= len(cases) // 20, report["harness_errors"]
    assert report["agreement"]["status"] >= 0.98 and report["agreement"]["sequence"] >= 0.98, report["agreement"]
    assert report["exact_agreement"] >= 0.95, [(d["case"], d["dimensions"]) for d in report["disagreements"]]
