"""Cost scaling on hostile inputs (a script, not a test): time and peak memory of one check.

Each *shape* is a generator of a file of about ``n`` bytes built to hit one cost: many blocks
(WF403's execution order), labels the sanitizer renames, misspelt keys (the "did you mean"
suggestions), one long minified line full of findings (the ``full`` format), deep nesting,
aliases of a long string, nested loops, ... For every shape and size the check runs in a fresh
process (``wflint check --format full``, the costliest format; the output's size is shown), so the peak
resident memory is that run's alone.

    python bench/hostile.py                       # every shape at 1, 2, 4 MB
    python bench/hostile.py --sizes 0.25,0.5,1,2,4,8 --shapes v1_chain,dash_labels

A 2x bigger input should cost about 2x: the ratio columns show it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

MB = 1024 * 1024


def _request(blocks: list, params: list | None = None, version: int | None = None) -> dict:
    definition: dict = {"parameters": params or [], "blocks": blocks}
    if version is not None:
        definition["version"] = version
    return {"title": "hostile", "workflow_definition": definition}


def _fill(n: int, one: Callable[[int], object], per: int) -> list:
    return [one(i) for i in range(max(1, n // per))]


def v1_chain(n: int) -> tuple[str, str]:
    """Blocks in list order, each reading the next one's output (WF403 on every block)."""
    def block(i: int) -> dict:
        return {"block_type": "text_prompt", "label": f"b{i}", "prompt": f"{{{{ b{i + 1}_output }}}}"}
    return "f.json", json.dumps(_request(_fill(n, block, 75)), indent=1)


def v2_chain(n: int) -> tuple[str, str]:
    """A v2 route through every block, each reading a later block's output."""
    count = max(1, n // 100)
    blocks = [{"block_type": "text_prompt", "label": f"b{i}", "prompt": f"{{{{ b{(i + 7) % count}_output }}}}",
               **({"next_block_label": f"b{i + 1}"} if i + 1 < count else {})} for i in range(count)]
    return "f.json", json.dumps(_request(blocks, version=2), indent=1)


def dash_labels(n: int) -> tuple[str, str]:
    """YAML labels the sanitizer renames, each referenced from a template."""
    lines = ["title: hostile", "workflow_definition:", "  parameters: []", "  blocks:"]
    for i in range(max(1, n // 180)):
        lines += [f"    - block_type: text_prompt", f"      label: step-{i}",
                  f"      prompt: 'Summarize {{{{ step-{max(i - 1, 0)}_output }}}} and {{{{ step-{i}-x }}}}'"]
    return "f.yaml", "\n".join(lines) + "\n"


def misspelt_keys(n: int) -> tuple[str, str]:
    """Many blocks with misspelt keys and undefined parameters: a suggestion for each."""
    def block(i: int) -> dict:
        return {"block_type": "navigation", "label": f"n{i}", "url": "https://example.com",
                "navigaton_goal": "x", f"param_{i}": 1, "parameter_keys": [f"undefined_{i}"]}
    return "f.json", json.dumps(_request(_fill(n, block, 150)), indent=1)


def minified_findings(n: int) -> tuple[str, str]:
    """One line: every finding quotes it in the ``full`` format."""
    def block(i: int) -> dict:
        return {"block_type": "wait", "label": f"w{i}", "wait_sec": 0}
    return "f.json", json.dumps(_request(_fill(n, block, 55)), separators=(",", ":"))


def deep_json(n: int) -> tuple[str, str]:
    """Nesting as deep as the text allows (refused at the depth limit)."""
    depth = n // 2
    return "f.json", "[" * depth + "]" * depth


def deep_yaml(n: int) -> tuple[str, str]:
    depth = n // 2
    return "f.yaml", "a: " + "[" * depth + "]" * depth + "\n"


def flat_numbers(n: int) -> tuple[str, str]:
    """The most nodes per byte: a long list of one-digit numbers."""
    items = ",".join("1" for _ in range(max(1, n // 2)))
    return "f.json", '{"title": "t", "workflow_definition": {"parameters": [], "blocks": [], "x": [' + items + "]}}"


def long_string(n: int) -> tuple[str, str]:
    """One prompt as long as the file, full of template tags."""
    body = "{{ a }} " * max(1, n // 8)
    return "f.json", json.dumps(_request([{"block_type": "text_prompt", "label": "p", "prompt": body}]), indent=1)


def big_prompts(n: int) -> tuple[str, str]:
    """Under every limit but the size: up to 4,000 blocks whose prompts fill the file, each
    reading two earlier outputs and one undefined name."""
    count = min(4000, max(1, n // 1000))
    filler = "Summarize the page and keep every price. " * max(1, (n // count - 150) // 42)
    blocks = [{"block_type": "text_prompt", "label": f"b{i}",
               "prompt": f"{filler}{{{{ b{max(i - 1, 0)}_output }}}} {{{{ b{max(i - 2, 0)}_output.x }}}} {{{{ undefined_{i} }}}}"}
              for i in range(count)]
    return "f.yaml", yaml_dump(_request(blocks))


def yaml_dump(data) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, width=1 << 30)


def alias_string(n: int) -> tuple[str, str]:
    """One long string aliased many times (refused at the alias limit)."""
    text = "x" * max(1, n // 2)
    return "f.yaml", f"title: &s {text}\nworkflow_definition:\n  parameters: []\n  blocks: []\n  x: [" + ", ".join("*s" for _ in range(max(1, n // 8))) + "]\n"


def nested_loops(n: int) -> tuple[str, str]:
    """Loops nested 45 deep (under the limit of 50), the innermost body as long as the size allows."""
    inner: list = [{"block_type": "wait", "label": f"w{i}", "wait_sec": 1} for i in range(max(1, n // 60))]
    for i in range(45):
        inner = [{"block_type": "for_loop", "label": f"l{i}", "loop_over_parameter_key": "p", "loop_blocks": inner}]
    params = [{"parameter_type": "workflow", "key": "p", "workflow_parameter_type": "json"}]
    return "f.json", json.dumps(_request(inner, params))


def deep_jinja(n: int) -> tuple[str, str]:
    depth = max(1, n // 20)
    prompt = "{% if a %}" * depth + "x" + "{% endif %}" * depth
    return "f.json", json.dumps(_request([{"block_type": "text_prompt", "label": "p", "prompt": prompt}]), indent=1)


def deep_python(n: int) -> tuple[str, str]:
    depth = max(1, n // 2)
    code = "x = " + "-" * depth + "1\n"
    return "f.json", json.dumps(_request([{"block_type": "code", "label": "c", "code": code}]), indent=1)


def v2_unchained(n: int) -> tuple[str, str]:
    """A v2 definition whose blocks are not chained: every block but the first is an extra
    starting block (WF303), each finding once listing all of them before issue 23."""
    count = max(1, min(4900, n // 45))  # under the default 'blocks' limit of 5,000
    pad = "x" * max(0, n // count - 45)  # long labels fill the rest
    lines = ["title: t", "workflow_definition:", "  version: 2", "  parameters: []", "  blocks:"]
    lines += [f"    - {{block_type: wait, label: b{i}_{pad}, wait_sec: 1}}" for i in range(count)]
    return "f.yaml", "\n".join(lines) + "\n"


SHAPES = {f.__name__: f for f in (v1_chain, v2_chain, dash_labels, misspelt_keys, minified_findings, deep_json,
                                  deep_yaml, flat_numbers, long_string, big_prompts, alias_string, nested_loops, deep_jinja,
                                  deep_python, v2_unchained)}


_CHILD = """
import resource, sys, time
from wflint.cli import main
t0 = time.perf_counter()
try:
    main(["check", "--format", "full", sys.argv[1]])
except SystemExit as exc:
    status = exc.code
took = time.perf_counter() - t0
print(took, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, status, file=sys.stderr)
"""


def measure(path: Path, timeout: float) -> tuple[float, float, int, int]:
    """(seconds, peak RSS in MB, exit status, bytes of output) of one check in a fresh process."""
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.run([sys.executable, "-c", _CHILD, str(path)], stdout=out, stderr=subprocess.PIPE,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            return timeout, float("nan"), -1, 0
        size = out.tell()
    try:
        took, rss, status = proc.stderr.decode().strip().splitlines()[-1].split()
        return float(took), int(rss) / 1024, int(status), size
    except (ValueError, IndexError):
        return float("nan"), float("nan"), proc.returncode, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1,2,4", help="sizes in MB, comma-separated")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="shapes, comma-separated")
    ap.add_argument("--timeout", type=float, default=120.0)
    args = ap.parse_args()
    sizes = [float(s) for s in args.sizes.split(",")]
    print(f"{'shape':<18} {'MB':>6} {'seconds':>8} {'peak MB':>8} {'exit':>4} {'output KB':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.shapes.split(","):
            for size in sizes:
                filename, text = SHAPES[name](int(size * MB))
                path = Path(tmp) / filename
                path.write_text(text, encoding="utf-8")
                real = os.path.getsize(path) / MB
                seconds, peak, status, output = measure(path, args.timeout)
                print(f"{name:<18} {real:6.2f} {seconds:8.2f} {peak:8.0f} {status:4d} {output / 1024:10.0f}", flush=True)


if __name__ == "__main__":
    main()
