"""The generated differential harness: generated workflows and cases, run on the REAL 1.0.56
engine and on ``wflint simulate``, compared dimension by dimension.

    python tools/engine/differential.py --seed 30 --workflows 300 --cases 7 \\
        --engine-cache /tmp/gen-engine.jsonl --report /tmp/gen-report.json
    python tools/engine/differential.py --seeds-from-service --cases 4 ...   # the real-seed run

Each case runs once through the engine (``oracle.run_real``, in batches: one engine process per
batch) and once through the simulator the way ``wflint simulate --format json`` runs a file (the
workflow written as a ``.json`` file, loaded, refused as the service refuses it or run). Both
traces are normalised (``tests/engine_diff.py``: ids, timestamps and loopback addresses dropped)
and compared on five dimensions (status, block sequence, outputs, failure reasons, prompts); a
case agrees exactly when all five do. ``--engine-cache`` keeps the engine's traces (JSON lines,
keyed by case name), so the simulator side can be rerun alone while it is being fixed.
``--shrink`` reduces each disagreement (one block or stub entry at a time, each round one
engine batch) and writes the smallest still-disagreeing case to the report.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

import loopback  # noqa: E402
import oracle  # noqa: E402
import workflow_gen  # noqa: E402
from engine_diff import DIMENSIONS, compare, normalise  # noqa: E402

LOOPBACK = re.compile(r"http://127\.0\.0\.1:\d+")
#: request keys that make the engine call a host of the seed's choosing
OUTBOUND_KEYS = ("webhook_callback_url", "totp_verification_url")


def _loopback_free(trace: Any) -> Any:
    """Each side runs its own loopback server: its address is not behaviour."""
    return json.loads(LOOPBACK.sub("$ECHO_URL", json.dumps(trace, default=str)))


class Simulator:
    """``wflint simulate --format json`` on one workflow file, case by case, in-process."""

    def __init__(self) -> None:
        self.base_url = loopback.start()
        self._dir = tempfile.TemporaryDirectory(prefix="wflint-gen-")
        self._loaded: dict[str, Any] = {}

    def run(self, engine_case: dict[str, Any]) -> dict[str, Any]:
        from wflint.simulate.loading import load_workflow
        from wflint.simulate.runs import run_case

        workflow = loopback.substitute(engine_case["workflow"], self.base_url)
        key = json.dumps(workflow, sort_keys=True)
        loaded = self._loaded.get(key)
        if loaded is None:
            # the file as the service receives it: YAML text as yaml_definition, data as json_definition
            if isinstance(workflow, dict) and "yaml_definition" in workflow:
                workflow = workflow["yaml_definition"]
            elif isinstance(workflow, dict) and "json_definition" in workflow:
                workflow = workflow["json_definition"]
            suffix = ".yaml" if isinstance(workflow, str) else ".json"
            path = Path(self._dir.name) / f"w{len(self._loaded)}{suffix}"
            path.write_text(workflow if isinstance(workflow, str) else json.dumps(workflow), encoding="utf-8")
            try:
                loaded = load_workflow(path)
            except Exception as exc:  # noqa: BLE001 - reported as the simulator's answer
                return {"name": engine_case["name"], "error": f"simulate refused the file: {exc}"}
            self._loaded[key] = loaded
        stub = loopback.substitute({"name": engine_case["name"], **engine_case["case"]}, self.base_url)
        refusal = loaded.refusal()
        if refusal:
            return {"name": engine_case["name"], **refusal}
        return run_case(loaded.request, stub)[0]


def run_engine(cases: list[dict[str, Any]], cache: Path | None, batch: int, log: Any) -> dict[str, dict[str, Any]]:
    """The engine's trace of every case (from the cache where it has the case by name and workflow)."""
    stored: dict[str, dict[str, Any]] = {}
    if cache is not None and cache.is_file():
        for line in cache.read_text().splitlines():
            if line.strip():
                item = json.loads(line)
                stored[item["key"]] = item["trace"]
    todo = [c for c in cases if _key(c) not in stored]
    for start in range(0, len(todo), batch):
        chunk = todo[start:start + batch]
        began = time.monotonic()
        traces = oracle.run_real(chunk, stderr=log)
        print(f"engine: {start + len(chunk)}/{len(todo)} cases ({time.monotonic() - began:.0f} s for {len(chunk)})",
              file=sys.stderr, flush=True)
        for c, trace in zip(chunk, traces, strict=True):
            stored[_key(c)] = trace
            if cache is not None:
                with cache.open("a") as fh:
                    fh.write(json.dumps({"key": _key(c), "trace": trace}) + "\n")
    return {c["name"]: stored[_key(c)] for c in cases}


def _key(engine_case: dict[str, Any]) -> str:
    return json.dumps([engine_case["workflow"], engine_case["case"]], sort_keys=True)


def score(cases: list[dict[str, Any]], real: dict[str, dict[str, Any]], sim: Simulator) -> dict[str, Any]:
    agree = {d: 0 for d in DIMENSIONS}
    exact, counted, harness_errors, disagreements = 0, 0, [], []
    workflows = set()
    for c in cases:
        eng = real[c["name"]]
        if "error" in eng:
            harness_errors.append({"case": c["name"], "error": eng["error"]})
            continue
        counted += 1
        workflows.add(json.dumps(c["workflow"], sort_keys=True))
        mine = sim.run(c)
        if "error" in mine:
            harness_errors.append({"case": c["name"], "error": mine["error"]})
            counted -= 1
            continue
        scores = compare(_loopback_free(mine), _loopback_free(eng))
        for d, (same, _, _) in scores.items():
            agree[d] += same
        if all(same for same, _, _ in scores.values()):
            exact += 1
        else:
            disagreements.append({
                "case": c["name"], "dimensions": [d for d, (same, _, _) in scores.items() if not same],
                "workflow": c["workflow"], "stubs": c["case"],
                "simulator": normalise(_loopback_free(mine)), "engine": normalise(_loopback_free(eng))})
    return {
        "cases": counted, "workflows": len(workflows), "exact": exact,
        "exact_agreement": round(exact / counted, 4) if counted else 0.0,
        "agreement": {d: round(agree[d] / counted, 4) if counted else 0.0 for d in DIMENSIONS},
        "harness_errors": harness_errors, "disagreements": disagreements,
    }


def shrink(disagreements: list[dict[str, Any]], cache: Path | None, batch: int, log: Any, sim: Simulator,
           rounds: int = 3) -> list[dict[str, Any]]:
    """Greedy one-step reductions, one engine batch per round, for every disagreement at once."""
    current = {d["case"]: {"name": d["case"], "workflow": d["workflow"], "case": d["stubs"]} for d in disagreements}
    for _ in range(rounds):
        candidates = []
        for name, c in current.items():
            for i, v in enumerate(workflow_gen.variants(c)):
                candidates.append({**v, "name": f"{name}~s{i}", "of": name})
        if not candidates:
            break
        real = run_engine([{k: v for k, v in c.items() if k != "of"} for c in candidates], cache, batch, log)
        changed = False
        for c in candidates:
            if c["of"] not in current or current[c["of"]].get("_round_done"):
                continue
            eng = real[c["name"]]
            if "error" in eng:
                continue
            scores = compare(_loopback_free(sim.run(c)), _loopback_free(eng))
            if not all(same for same, _, _ in scores.values()):
                current[c["of"]] = {"name": c["of"], "workflow": c["workflow"], "case": c["case"], "_round_done": True}
                changed = True
        for c in current.values():
            c.pop("_round_done", None)
        if not changed:
            break
    return list(current.values())


def service_seeds(git_dir: Path) -> list[tuple[Any, dict[str, Any]]]:
    """Workflows nobody here wrote (tools/oracle/real_seeds.py over a clone of the service's
    repository), as (what is sent: YAML text or data, the parsed request for stubbing)."""
    import yaml

    sys.path.insert(0, str(REPO / "tools" / "oracle"))
    import real_seeds  # noqa: PLC0415

    out = []
    for seed in real_seeds.seeds(git_dir):
        try:
            body = seed.body()
            sent: Any = body.get("yaml_definition") if "yaml_definition" in body else body.get("json_definition")
            parsed = yaml.safe_load(sent) if isinstance(sent, str) else sent
        except Exception:  # noqa: BLE001 - a seed that does not parse is not a runnable workflow
            continue
        if isinstance(parsed, dict) and isinstance(parsed.get("workflow_definition"), dict):
            if any(parsed.get(k) for k in OUTBOUND_KEYS):
                # loopback only: a webhook to the seed's host must not be sent
                parsed = {k: v for k, v in parsed.items() if k not in OUTBOUND_KEYS}
                sent = yaml.safe_dump(parsed, sort_keys=False, allow_unicode=True) if isinstance(sent, str) else parsed
            out.append((sent, parsed))
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--workflows", type=int, default=300)
    parser.add_argument("--cases", type=int, default=7, help="cases per workflow")
    parser.add_argument("--batch", type=int, default=250, help="cases per engine process")
    parser.add_argument("--engine-cache", type=Path)
    parser.add_argument("--report", type=Path, default=Path("generated-agreement.json"))
    parser.add_argument("--engine-log", type=Path)
    parser.add_argument("--shrink", action="store_true")
    parser.add_argument("--engine-only", metavar="START:END",
                        help="only fill the engine cache for this slice of the cases (to share a big run "
                             "between processes), then stop")
    parser.add_argument("--seeds-from-service", type=Path, metavar="GIT_DIR",
                        help="real definitions found in a clone of the service's repository "
                             "(tools/oracle/real_seeds.py) with generated stubs, not generated workflows")
    args = parser.parse_args(argv)
    if not oracle.available():
        print(oracle.why_unavailable(), file=sys.stderr)
        return 2
    if args.seeds_from_service:
        import random

        rng = random.Random(args.seed)
        cases = [{"name": f"seed{i}-c{c}", "workflow": sent, "case": workflow_gen.case(parsed, rng)}
                 for i, (sent, parsed) in enumerate(service_seeds(args.seeds_from_service)) for c in range(args.cases)]
    else:
        cases = workflow_gen.generate(args.seed, args.workflows, args.cases)
    log = args.engine_log.open("a") if args.engine_log else sys.stderr
    if args.engine_only:
        start, _, end = args.engine_only.partition(":")
        run_engine(cases[int(start or 0):int(end) if end else None], args.engine_cache, args.batch, log)
        return 0
    real = run_engine(cases, args.engine_cache, args.batch, log)
    sim = Simulator()
    report = score(cases, real, sim)
    report = {"seed": args.seed, "per_workflow": args.cases,
              "source": "real seeds" if args.seeds_from_service else "generated", **report}
    if args.shrink and report["disagreements"]:
        report["shrunk"] = shrink(report["disagreements"], args.engine_cache, args.batch, log, sim)
    args.report.write_text(json.dumps(report, indent=1, default=str, ensure_ascii=False))
    figures = ", ".join(f"{d} {v:.2%}" for d, v in report["agreement"].items())
    print(f"{report['source']}: {report['cases']} cases over {report['workflows']} workflows (seed {args.seed}): "
          f"exact {report['exact']}/{report['cases']} = {report['exact_agreement']:.2%}; {figures}; "
          f"harness errors {len(report['harness_errors'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
