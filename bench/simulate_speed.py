"""How fast ``wflint simulate`` runs a workflow in-process (a script, not a test).

The workflow: 20 blocks, v1, with a for_loop of 10 iterations whose body holds a code block, a
conditional and a text_prompt; code blocks before and after the loop, a wait, an http_request
(stubbed), extraction and navigation blocks (stubbed through the task seam). Start-up (the
first run: the code worker process, Jinja and jsonschema imports) is reported apart, then the
median and the worst of ``--runs`` runs. A second measure runs the scenario fixtures'
``wflint test`` cases ``--repeat`` times over (as a repository of that many cases would).

    python bench/simulate_speed.py
    python bench/simulate_speed.py --runs 200 --repeat 7
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from wflint.engine import simulate  # noqa: E402
from wflint.simulate.suite import run_suite  # noqa: E402


def twenty_blocks() -> tuple[dict, dict]:
    body = [
        {"block_type": "code", "label": "square", "code": "sq = {{ current_value }} ** 2\nidx = {{ current_index }}",
         "next_block_label": "is_big"},
        {"block_type": "conditional", "label": "is_big", "branch_conditions": [
            {"criteria": {"expression": "{{ square_output.sq > 20 }}"}, "next_block_label": "note_big"},
            {"is_default": True, "next_block_label": "note_small"}]},
        {"block_type": "text_prompt", "label": "note_big", "prompt": "{{ current_value }} is big"},
        {"block_type": "code", "label": "note_small", "code": "small = True"},
    ]
    blocks = [{"block_type": "code", "label": f"prep_{i}", "code": f"v{i} = {i} + 1"} for i in range(6)]
    blocks += [
        {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "xs", "loop_blocks": body},
        {"block_type": "code", "label": "count", "code": "n = {{ each_output | length }}"},
        {"block_type": "wait", "label": "pause", "wait_sec": 1},
        {"block_type": "http_request", "label": "notify", "method": "POST", "url": "https://hooks.example.com/x",
         "body": {"n": "{{ count_output.n | json }}"}},
        {"block_type": "extraction", "label": "read", "url": "https://shop.example.com/cart",
         "data_extraction_goal": "Read the total"},
        {"block_type": "navigation", "label": "go", "navigation_goal": "Open {{ read_output.extracted_information.page }}"},
        {"block_type": "code", "label": "finish", "code": "done = True"},
    ]
    blocks += [{"block_type": "code", "label": f"post_{i}", "code": f"w{i} = '{{{{ prep_{i}_output.v{i} }}}}'"}
               for i in range(3)]
    request = {"title": "bench", "workflow_definition": {
        "parameters": [{"parameter_type": "workflow", "key": "xs", "workflow_parameter_type": "json",
                        "default_value": list(range(10))}],
        "blocks": blocks}}
    case = {"name": "bench", "llm": {"note_big": "yes"}, "blocks": {"notify": {"output": {"status_code": 200}}},
            "tasks": {"read": {"status": "completed", "extracted_information": {"page": "x"}}}}
    top = len(blocks) + len(body)
    assert top >= 20, top
    return request, case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=6, help="times to run the fixtures' cases")
    args = parser.parse_args()
    request, case = twenty_blocks()
    t0 = time.perf_counter()
    first = simulate(request, case)
    startup = time.perf_counter() - t0
    assert first["status"] == "completed", first["failure_reason"]
    rows = len(first["trace"])
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        simulate(request, case)
        times.append(time.perf_counter() - t)
    print(f"20-block workflow, 10-iteration loop: {rows} block executions per run")
    print(f"  first run (start-up included): {startup * 1000:.1f} ms")
    print(f"  median {statistics.median(times) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms over {args.runs} runs")
    t = time.perf_counter()
    cases = 0
    for _ in range(args.repeat):
        suite = run_suite([str(ROOT / "fixtures" / "simulate")])
        cases += len(suite.cases)
    print(f"fixtures' test cases: {cases} cases in {time.perf_counter() - t:.2f} s")


if __name__ == "__main__":
    main()
