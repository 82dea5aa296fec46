"""Time ``wflint check`` over the benchmark corpus (a script, not a test).

Measures, over the files of ``bench/corpus`` (make them with ``bench/make_corpus.py``):

* the library API: ``wflint.api.check_paths([corpus])`` in this process, a first (cold) call and
  a second (warm) one with the default worker count, then one with ``jobs=1`` (one process);
* the command line: ``python -m wflint check <corpus> --format concise`` as a subprocess, start-up
  and imports included;
* per file: ``wflint.api.check_file`` on each file separately (mean, median, p95, the 5 slowest);
* with ``--profile``: cProfile over one ``check_paths(jobs=1)`` call, top 15 functions by
  cumulative time.

It also compares the findings with ``manifest.tsv``: every file with an injected mistake should
draw an error, and no other file should.

    PYTHONPATH=src python bench/make_corpus.py && PYTHONPATH=src python bench/run.py [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import os
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = ROOT / "bench" / "corpus"


def _table(rows: list[tuple[str, str]]) -> str:
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"  {k.ljust(width)}  {v}" for k, v in rows)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def time_import() -> float:
    t0 = time.perf_counter()
    import wflint.api  # noqa: F401  (the import is what is timed)

    return time.perf_counter() - t0


def _supports_jobs() -> bool:
    import inspect

    from wflint.api import check_paths

    return "jobs" in inspect.signature(check_paths).parameters


def run_check_paths(corpus: Path, jobs: int | None = None):
    from wflint.api import check_paths

    return check_paths([corpus], jobs=jobs) if jobs is not None and _supports_jobs() else check_paths([corpus])


def time_library(corpus: Path):
    """(report, cold s, warm s, sequential s or None): default jobs twice, then one process."""
    t0 = time.perf_counter()
    report = run_check_paths(corpus)
    cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_check_paths(corpus)
    warm = time.perf_counter() - t0
    sequential = None
    if _supports_jobs():
        t0 = time.perf_counter()
        run_check_paths(corpus, jobs=1)
        sequential = time.perf_counter() - t0
    return report, cold, warm, sequential


def time_per_file(files: list[Path]) -> list[tuple[float, Path]]:
    from wflint.api import check_file

    out = []
    for f in files:
        t0 = time.perf_counter()
        check_file(f)
        out.append((time.perf_counter() - t0, f))
    return out


def time_cli(corpus: Path) -> tuple[float, int, int]:
    env = dict(os.environ)
    src = str(ROOT / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "wflint", "check", str(corpus), "--format", "concise"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.exit(f"the CLI failed with status {proc.returncode}:\n{proc.stderr[-2000:]}")
    return wall, proc.returncode, len([ln for ln in proc.stdout.splitlines() if ": WF" in ln])


def profile(corpus: Path, top: int = 15) -> str:
    """cProfile over one check_paths call in this process (``jobs=1``: a process pool would
    leave only the parent's waiting in the profile)."""
    prof = cProfile.Profile()
    prof.enable()
    run_check_paths(corpus, jobs=1)
    prof.disable()
    def table(order: str, count: int) -> tuple[str, list[str]]:
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(order).print_stats(count)
        lines = buf.getvalue().splitlines()
        # keep the line with the totals and the table itself
        start = next((i for i, ln in enumerate(lines) if "ncalls" in ln), 0)
        total = next((ln.strip() for ln in lines if "function calls" in ln), "")
        return total, [ln for ln in lines[start:] if ln.strip()]

    total, cumulative = table("cumulative", top)
    _, own = table("tottime", 10)
    return "\n".join([total, *cumulative, "", "top 10 by own time (tottime):", *own])


def manifest_check(corpus: Path, report) -> str:
    manifest = corpus / "manifest.tsv"
    if not manifest.exists():
        return "no manifest.tsv: skipped"
    with manifest.open(encoding="utf-8") as f:
        rows = {r["file"]: r["mistake"] for r in csv.DictReader(f, delimiter="\t")}
    with_errors = {Path(d.path).name for d in report.diagnostics if d.severity == "error"}
    injected = {name for name, m in rows.items() if m != "-"}
    missed = sorted(injected - with_errors)
    false_alarms = sorted(with_errors - injected)
    text = f"{len(injected & with_errors)}/{len(injected)} injected mistakes caught, {len(false_alarms)} clean files with errors"
    if missed:
        text += "\n    missed: " + ", ".join(f"{n} ({rows[n]})" for n in missed[:10])
    if false_alarms:
        text += "\n    errors on clean files: " + ", ".join(false_alarms[:10])
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Time wflint check over the benchmark corpus.")
    ap.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--profile", action="store_true", help="add cProfile's top 15 cumulative functions")
    ap.add_argument("--no-cli", action="store_true", help="skip the subprocess run")
    args = ap.parse_args(argv)

    corpus: Path = args.corpus
    files = sorted(p for p in corpus.rglob("*") if p.suffix in (".json", ".yaml", ".yml")) if corpus.is_dir() else []
    if not files:
        sys.exit(f"no workflow files in {corpus}: run `PYTHONPATH=src python bench/make_corpus.py` first")
    n = len(files)
    size = sum(f.stat().st_size for f in files)

    imp = time_import()
    report, cold, warm, sequential = time_library(corpus)
    per_file = time_per_file(files)
    times = sorted(t for t, _ in per_file)
    cli = time_cli(corpus) if not args.no_cli else None

    errors = sum(1 for d in report.diagnostics if d.severity == "error")
    warnings = sum(1 for d in report.diagnostics if d.severity == "warning")
    print(f"wflint check over {corpus} - {n} files, {size / 1e6:.1f} MB, Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")

    def rate(seconds: float) -> str:
        return f"{seconds:.2f} s   {n / seconds:,.0f} files/s   {_ms(seconds / n)}/file"

    rows = [
        ("import wflint.api", _ms(imp)),
        ("check_paths, cold", rate(cold)),
        ("check_paths, warm", rate(warm)),
    ]
    if sequential is not None:
        rows.append(("check_paths, jobs=1", rate(sequential)))
    if cli is not None:
        wall, rc, lines = cli
        rows.append(("CLI subprocess", f"{rate(wall)}   (exit {rc}, {lines} findings)"))
    rows += [
        ("per file (check_file)", f"mean {_ms(statistics.fmean(times))}   median {_ms(statistics.median(times))}   "
                                  f"p95 {_ms(times[int(0.95 * (n - 1))])}   max {_ms(times[-1])}"),
        ("findings", f"{report.files_checked} files checked, {report.files_skipped} skipped, {errors} errors, {warnings} warnings"),
        ("manifest", manifest_check(corpus, report)),
    ]
    print(_table(rows))
    print("\nslowest files (check_file):")
    for t, f in sorted(per_file, key=lambda x: x[0], reverse=True)[:5]:
        print(f"  {_ms(t):>10}  {f.stat().st_size / 1024:7.1f} KB  {f.relative_to(corpus) if f.is_relative_to(corpus) else f}")
    if args.profile:
        print("\nprofile of one check_paths call (top 15 by cumulative time):")
        print(profile(corpus))
    return 0


if __name__ == "__main__":
    sys.exit(main())
