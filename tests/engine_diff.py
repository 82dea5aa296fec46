"""Comparing the simulator's traces with the real engine's (``pytest -m engine``).

``corpus`` gathers the cases: every test file under fixtures/simulate, the engine oracle's own
scenarios (tools/engine/scenarios) and seeded random variations of both (parameters, stub
outcomes: failures, empty lists, prompt-branch results, schema misses, retries). ``normalise``
puts both traces in one form (ids, timestamps and host-dependent headers dropped); ``compare``
scores each case on five dimensions: run status, block sequence, outputs, failure reasons,
rendered prompts.
"""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "simulate"
sys.path.insert(0, str(ROOT / "tools" / "engine"))
import trace_normal  # noqa: E402  (tools/engine: also run by the release's own Python)

DIMENSIONS = ("status", "sequence", "outputs", "failure_reasons", "prompts")


def normalise(value: Any) -> Any:
    """Both sides of a comparison, through the one trace normaliser (``tools/engine/trace_normal``)."""
    return trace_normal.normalise(value, for_comparison=True)


def _rows(trace: dict[str, Any]) -> list[dict[str, Any]]:
    return trace.get("trace") or []


def compare(sim: dict[str, Any], real: dict[str, Any]) -> dict[str, tuple[bool, Any, Any]]:
    """Per dimension: (agree, simulator's value, engine's value)."""
    sim, real = normalise(sim), normalise(real)
    if "http_status" in real or "http_status" in sim:
        key = (real.get("http_status"), (real.get("body") or {}).get("detail") if isinstance(real.get("body"), dict) else real.get("body"))
        mine = (sim.get("http_status"), (sim.get("body") or {}).get("detail") if isinstance(sim.get("body"), dict) else sim.get("body"))
        same = key == mine
        return {d: (same, mine, key) for d in DIMENSIONS}
    out = {}
    out["status"] = (sim.get("status") == real.get("status"), sim.get("status"), real.get("status"))
    seq_sim = [(r["label"], r["status"], r.get("parent"), r.get("index"), r.get("value")) for r in _rows(sim)]
    seq_real = [(r["label"], r["status"], r.get("parent"), r.get("index"), r.get("value")) for r in _rows(real)]
    out["sequence"] = (seq_sim == seq_real, seq_sim, seq_real)
    outs_sim = (sim.get("outputs"), [r.get("output") for r in _rows(sim)])
    outs_real = (real.get("outputs"), [r.get("output") for r in _rows(real)])
    out["outputs"] = (outs_sim == outs_real, outs_sim, outs_real)
    fr_sim = (sim.get("failure_reason"), sim.get("errors"), [r.get("failure_reason") for r in _rows(sim)])
    fr_real = (real.get("failure_reason"), real.get("errors"), [r.get("failure_reason") for r in _rows(real)])
    out["failure_reasons"] = (fr_sim == fr_real, fr_sim, fr_real)
    out["prompts"] = (sim.get("llm_prompts") == real.get("llm_prompts"), sim.get("llm_prompts"), real.get("llm_prompts"))
    return out


# --------------------------------------------------------------------------- the corpus


def fixture_cases() -> list[dict[str, Any]]:
    """Every case of every test file under fixtures/simulate, as an engine case."""
    from wflint.simulate.loading import load_workflow
    from wflint.simulate.suite import find_test_files, read_test_file

    cases = []
    for test_file in find_test_files([str(FIXTURES)]):
        workflow_path, file_cases, _network = read_test_file(test_file)
        request = load_workflow(workflow_path).request
        for case in file_cases:
            stub = {k: v for k, v in case.items() if k not in ("expect", "network", "name")}
            cases.append({"name": f"{test_file.stem}/{case['name']}", "workflow": request, "case": stub})
    return cases


def _blocks(blocks: list[Any]) -> list[dict[str, Any]]:
    out = []
    for b in blocks:
        if isinstance(b, dict):
            out.append(b)
            out.extend(_blocks(b.get("loop_blocks") or []))
    return out


TASK_TYPES = ("task", "navigation", "extraction", "login", "action", "file_download", "validation")


def vary(base: dict[str, Any], rng: random.Random, n: int) -> list[dict[str, Any]]:
    """``n`` seeded variations of one engine case: other parameter values, other stub outcomes."""
    workflow = base["workflow"]
    definition = workflow.get("workflow_definition") if isinstance(workflow, dict) else None
    if not isinstance(definition, dict):
        return []
    params = [p for p in definition.get("parameters") or [] if isinstance(p, dict) and p.get("parameter_type") == "workflow"]
    blocks = _blocks(definition.get("blocks") or [])
    out = []
    for i in range(n):
        case = copy.deepcopy(base["case"])
        parameters = dict(case.get("parameters") or {})
        for p in params:
            if rng.random() < 0.5:
                continue
            kind = p.get("workflow_parameter_type")
            if kind == "integer":
                parameters[p["key"]] = rng.choice([0, 1, 3, 7, 12, 600, -2])
            elif kind == "float":
                parameters[p["key"]] = rng.choice([0.0, 2.5, 99.9, 900.0])
            elif kind == "boolean":
                parameters[p["key"]] = rng.choice([True, False, "true", "0"])
            elif kind == "json":
                parameters[p["key"]] = rng.choice([[], [1], [1, 0, 2], [3, 4, 5, 6], {"id": 1}])
            elif kind == "string":
                parameters[p["key"]] = rng.choice(["a", "b", "x", "", "hello world and more"])
        case["parameters"] = parameters
        for b in blocks:
            label, kind = b.get("label"), b.get("block_type")
            roll = rng.random()
            if kind in TASK_TYPES and roll < 0.6:
                status = rng.choice(["completed", "completed", "failed", "terminated"])
                case.setdefault("tasks", {})[label] = {
                    "status": status, "extracted_information": rng.choice([None, {"price": 3}, {"rows": [1, 2]}]),
                    "failure_reason": None if status == "completed" else "stub says no"}
            elif kind == "text_prompt" and roll < 0.6:
                case.setdefault("llm", {})[label] = rng.choice(
                    ["plain text", {"answer": "ok"}, {"wrong": 1}, [{"wrong": 1}, {"answer": "second"}],
                     {"raise": "LLM unavailable"}, {"approve": True}])
            elif kind == "conditional" and roll < 0.5:
                n_branches = len(b.get("branch_conditions") or [])
                case.setdefault("prompt_branches", {})[label] = [rng.random() < 0.5 for _ in range(n_branches)]
            elif kind == "code" and roll < 0.1:
                case.setdefault("blocks", {})[label] = rng.choice(
                    [{"output": {"stubbed": True}}, {"fail": "stubbed failure"}, {"status": "terminated", "fail": "stop"}])
        out.append({"name": f"{base['name']}~{i}", "workflow": workflow, "case": case})
    return out


def mutate(base: dict[str, Any], rng: random.Random, n: int) -> list[dict[str, Any]]:
    """``n`` seeded variations of the workflow itself: failure flags switched on and off
    (``continue_on_failure``, ``next_loop_on_failure``, ``complete_if_empty``, ``max_retries``), with
    stub outcomes that exercise them (failing, terminated and timed-out tasks; failing block stubs)."""
    workflow = base["workflow"]
    if not isinstance(workflow, dict) or not isinstance(workflow.get("workflow_definition"), dict):
        return []
    out = []
    for i in range(n):
        changed = copy.deepcopy(workflow)
        blocks = _blocks(changed["workflow_definition"].get("blocks") or [])
        case = copy.deepcopy(base["case"])
        for b in blocks:
            kind, label = b.get("block_type"), b.get("label")
            if rng.random() < 0.4:
                b["continue_on_failure"] = not b.get("continue_on_failure")
            if kind in ("for_loop", "while_loop"):
                if rng.random() < 0.4:
                    b["next_loop_on_failure"] = not b.get("next_loop_on_failure")
                if kind == "for_loop" and rng.random() < 0.3:
                    b["complete_if_empty"] = not b.get("complete_if_empty")
            elif rng.random() < 0.15:
                b["next_loop_on_failure"] = True
            if kind in TASK_TYPES:
                if rng.random() < 0.5:
                    b["max_retries"] = rng.choice([0, 1, 2])
                if rng.random() < 0.6:
                    case.setdefault("tasks", {})[label] = [
                        {"status": rng.choice(["completed", "failed", "failed", "terminated", "timed_out"]),
                         "failure_reason": rng.choice([None, "element not found", "blocked by a captcha"]),
                         "extracted_information": rng.choice([None, {"n": 1}])} for _ in range(3)]
            elif kind in ("code", "text_prompt", "http_request", "wait") and rng.random() < 0.15:
                case.setdefault("blocks", {})[label] = rng.choice(
                    [{"fail": "stubbed failure"}, {"status": "terminated", "fail": "stop here"},
                     {"status": "timed_out", "fail": "too slow"}, {"output": {"ok": True}}])
        out.append({"name": f"{base['name']}~m{i}", "workflow": changed, "case": case})
    return out


def generated_cases(bases: list[dict[str, Any]], seed: int = 19, per_case: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out = []
    for base in bases:
        out.extend(vary(base, rng, per_case))
    for base in bases:
        out.extend(mutate(base, rng, 2))
    return out


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))
