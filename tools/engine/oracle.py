"""Ask the REAL engine of release 1.0.56 how it runs workflows, from wflint's Python.

    from tools.engine.oracle import run_real, load_scenarios, scenario_cases
    traces = run_real([{"name": "x", "workflow": {...}, "case": {...}}, ...])

``run_real`` starts ``real_engine.py`` once, in the release's cached virtual environment
(``tools/oracle/venvs.py``; never installed from here), feeds it every case and returns one
normalised trace per case, in order (service-runs.md: ``{name, status, failure_reason, errors,
outputs, trace, llm_prompts}``, or ``{name, http_status, body}`` for a refusal, or
``{name, error}`` when the harness itself could not run the case). One process serves hundreds
of cases: about 20-50 s to start, then 0.1-0.2 s per block.

Command line: ``python tools/engine/oracle.py SCENARIO_OR_CASES ... [--release 1.0.56]`` prints
the traces as JSON lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tools" / "oracle"))

import venvs  # noqa: E402

RELEASE = "1.0.56"
SCENARIOS = HERE / "scenarios"


class EngineUnavailable(RuntimeError):
    """The release's cached environment is not installed (or not finished installing)."""


class EngineFailed(RuntimeError):
    """The engine process died or answered something other than one trace per case."""


def available(release: str = RELEASE) -> bool:
    return venvs.installed(release)


def why_unavailable(release: str = RELEASE) -> str:
    return (f"the real engine needs skyvern[local]=={release} in {venvs.venv_dir(release)} "
            f"(marker {venvs.venv_dir(release) / '.installed'} missing); install it with "
            f"tools/oracle/venvs.py's ensure('{release}') or wait for the background install")


def engine_env() -> dict[str, str]:
    """The environment the release's Python runs in (as ``venvs.run_in`` sets it)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "SKYVERN_TELEMETRY": "false",
           "LOG_LEVEL": "WARNING", "PYTHONWARNINGS": "ignore"}
    env.pop("PYTHONPATH", None)
    return env


def run_real(cases: list[dict[str, Any]], *, release: str = RELEASE, timeout: float | None = None,
             stderr: Any = None) -> list[dict[str, Any]]:
    """One normalised trace per case, in order, from the real engine."""
    if not cases:
        return []
    if not available(release):
        raise EngineUnavailable(why_unavailable(release))
    names = [c.get("name") for c in cases]
    with tempfile.TemporaryDirectory(prefix="wflint-engine-cases-") as tmp:
        src = Path(tmp) / "cases.jsonl"
        with src.open("w", encoding="utf-8") as fh:
            for case in cases:
                fh.write(json.dumps(case) + "\n")
        budget = timeout if timeout is not None else 180 + 30 * len(cases)
        try:
            done = subprocess.run([str(venvs.python_of(release)), str(HERE / "real_engine.py"), str(src)],
                                  env=engine_env(), capture_output=True, text=True, timeout=budget)
        except subprocess.TimeoutExpired as exc:
            raise EngineFailed(f"the real engine did not finish {len(cases)} cases in {budget:.0f} s") from exc
    if stderr is not None:
        stderr.write(done.stderr)
    traces = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    if done.returncode != 0 or len(traces) != len(cases):
        raise EngineFailed(f"the real engine exited {done.returncode} with {len(traces)} of {len(cases)} "
                           f"traces:\n{done.stderr[-4000:]}")
    got = [t.get("name") for t in traces]
    if got != names:
        raise EngineFailed(f"the real engine answered cases {got}, expected {names}")
    return traces


class RealServer:
    """The real app served on loopback (``real_engine.py --serve``): ``url``, ``api_key``,
    ``echo_url``; a context manager that stops the process on exit."""

    def __init__(self, *, port: int = 0, stubs_dir: Path | None = None, release: str = RELEASE,
                 start_timeout: float = 300) -> None:
        if not available(release):
            raise EngineUnavailable(why_unavailable(release))
        cmd = [str(venvs.python_of(release)), str(HERE / "real_engine.py"), "--serve", str(port)]
        if stubs_dir is not None:
            cmd += ["--stubs", str(Path(stubs_dir).resolve())]
        self._log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self.process = subprocess.Popen(cmd, env=engine_env(), stdout=subprocess.PIPE, stderr=self._log, text=True)
        line = _readline_within(self.process, start_timeout)
        if not line:
            self.close()
            self._log.seek(0)
            raise EngineFailed(f"the real app did not start serving:\n{self._log.read()[-4000:]}")
        info = json.loads(line)
        self.url: str = info["url"]
        self.api_key: str = info["api_key"]
        self.echo_url: str = info["echo_url"]

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "RealServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _readline_within(process: subprocess.Popen, seconds: float) -> str:
    import threading

    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(seconds)
    return got[0] if got else ""


# --------------------------------------------------------------------------- scenarios


def load_scenarios(paths: list[Path] | None = None) -> dict[str, dict[str, Any]]:
    """Scenario files by name: ``{workflow, cases: [{name, case, expect}], description}``."""
    import yaml

    files = paths or sorted(SCENARIOS.glob("*.yaml"))
    out = {}
    for f in files:
        data = yaml.safe_load(Path(f).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "workflow" not in data or "cases" not in data:
            raise ValueError(f"{f}: a scenario needs 'workflow' and 'cases'")
        out[Path(f).stem] = data
    return out


def scenario_cases(scenarios: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The engine cases of some scenarios; case names are ``<scenario>/<case>``."""
    cases = []
    for name, sc in scenarios.items():
        for c in sc["cases"]:
            cases.append({"name": f"{name}/{c['name']}", "workflow": c.get("workflow", sc["workflow"]),
                          "case": c.get("case") or {}})
    return cases


def check_expectations(trace: dict[str, Any], expect: dict[str, Any]) -> list[str]:
    """What in ``trace`` disagrees with a scenario case's ``expect`` (empty: all agree).

    ``expect`` keys: ``status``, ``failure_reason`` (exact), ``failure_reason_contains``,
    ``errors`` (exact list), ``http_status``, ``path`` (labels in start order, parents included),
    ``blocks`` ({label: status of its last row}), ``failure_reasons`` ({label: reason of its last row}),
    ``block_outputs`` ({label: output of its last row}), ``outputs`` ({key: value}), ``llm_calls``
    ({label: number of prompts})."""
    problems = []

    def differ(what: str, want: Any, got: Any) -> None:
        if want != got:
            problems.append(f"{what}: expected {want!r}, got {got!r}")

    for key in ("status", "failure_reason", "errors", "http_status", "body"):
        if key in expect:
            differ(key, expect[key], trace.get(key))
    if "webhook_failure_reason" in expect:
        differ("webhook_failure_reason", expect["webhook_failure_reason"], trace.get("webhook_failure_reason"))
    if "failure_reason_contains" in expect and expect["failure_reason_contains"] not in (trace.get("failure_reason") or ""):
        problems.append(f"failure_reason: expected to contain {expect['failure_reason_contains']!r}, "
                        f"got {trace.get('failure_reason')!r}")
    rows = trace.get("trace") or []
    if "path" in expect:
        differ("path", expect["path"], [r["label"] for r in rows])
    for label, status in (expect.get("blocks") or {}).items():
        mine = [r["status"] for r in rows if r["label"] == label]
        differ(f"block {label}", status, mine[-1] if mine else "not run")
    for label, reason in (expect.get("failure_reasons") or {}).items():
        mine = [r["failure_reason"] for r in rows if r["label"] == label]
        differ(f"failure_reason of {label}", reason, mine[-1] if mine else "not run")
    for label, output in (expect.get("block_outputs") or {}).items():
        mine = [r["output"] for r in rows if r["label"] == label]
        differ(f"output of {label}", output, mine[-1] if mine else "not run")
    for key, value in (expect.get("outputs") or {}).items():
        differ(f"outputs[{key}]", value, (trace.get("outputs") or {}).get(key))
    for label, n in (expect.get("llm_calls") or {}).items():
        differ(f"llm calls of {label}", n, sum(1 for p in trace.get("llm_prompts") or [] if p["label"] == label))
    return problems


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="*", type=Path, help="scenario .yaml files or cases .jsonl (default: every scenario)")
    ap.add_argument("--release", default=RELEASE)
    args = ap.parse_args(argv)
    scen = [p for p in args.inputs if p.suffix in (".yaml", ".yml")]
    cases = scenario_cases(load_scenarios(scen)) if scen or not args.inputs else []
    for p in args.inputs:
        if p.suffix not in (".yaml", ".yml"):
            cases += [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    try:
        traces = run_real(cases, release=args.release, stderr=sys.stderr)
    except (EngineUnavailable, EngineFailed) as exc:
        print(f"engine oracle: {exc}", file=sys.stderr)
        return 2
    for t in traces:
        print(json.dumps(t))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    sys.exit(main(sys.argv[1:]))
