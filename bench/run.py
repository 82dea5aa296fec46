"""Measure wflint side by side with what it cannot beat, in one run (a script, not a test).

    python bench/run.py            # about 3 minutes on the busy 2-core machine (7-9 when very busy)
    python bench/run.py --quick    # 200 files, fewer repeats and requests: about 1.5 minutes

Run it with the interpreter that has wflint installed (``.venv/bin/python``). Every figure
is the wall time of a fresh process (start-up and imports included), its CPU time (user +
system, with the worker processes it reaped) and the peak resident memory of the largest
process of its tree (``wait4``'s ``ru_maxrss``), so the rows compare like with like:

* **corpus** (``bench/corpus``, made by ``make_corpus.py`` when missing): the parse floor
  (libyaml's C composer over every file, one process), ``wflint check`` with the default
  worker count and with ``--jobs 1``, and check-jsonschema with wflint's generated schema over
  the bare definition files of the corpus (it is slow, so a sample; wflint runs the same
  sample for the ratio). check-jsonschema is installed into ``bench/.venv`` on first use; it is
  not a dependency of wflint;
* **stages** (``stages.py``): the same corpus in one process, CPU time of the floor, of
  wflint's positioned parse and of the whole check, with no start-up or workers;
* **one file** (a median-sized corpus file): the interpreter floor ``python -c "import
  yaml"``, ``wflint check f``, check-jsonschema on it;
* **scaling**: the corpus ten times over (``bench/corpus-x10``, copies in ten folders, so the
  work per file is identical), and one 5 MB and one 10 MB workflow (``bench/big``);
* **serve**: start-up until ``/healthz`` answers, then list and update at 1, 4 and 16
  loopback clients (keep-alive connections, a fixed number of requests each): requests/s,
  p50 and p99 latency.

Times are medians of ``--repeat`` runs where a run is short. A figure and the floor it is
divided by are measured in alternation (floor, wflint, floor, wflint ...: three runs each for the
corpus, four times ``--repeat`` for one file), so a change of load during the bench weighs on
both. The machine is shared: the load average is printed with the results.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SCHEMA = ROOT / "schemas" / "workflow-definition.schema.json"
BENCH_VENV = BENCH / ".venv"
API_KEY = "bench-key"

sys.path.insert(0, str(BENCH))
import make_corpus  # noqa: E402  (the corpus generator beside this script)
import guard  # noqa: E402  (the bounds the ratios are held to)

# ------------------------------------------------------------------------------ processes


def _popen_wait4(cmd: list[str], **kw) -> tuple[float, float, int, int, bytes]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=CHILD_ENV, **kw)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()))
    reader.start()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    reader.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    # user + system time of the process and of the children it reaped (the worker pool)
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, proc.returncode, usage.ru_maxrss // 1024, b"".join(chunks)


def measure(cmd: list[str], ok=(0, 1), repeat: int = 1, **kw) -> tuple[float, float, int, str]:
    """Median wall seconds, median CPU seconds, peak RSS (MB) of the largest process of the
    tree, last output. On a shared machine CPU time is the steadier figure: wall time also
    counts the time other users' processes held the cores."""
    return measure_together([cmd], ok, repeat, **kw)[0]


def measure_together(cmds: list[list[str]], ok=(0, 1), repeat: int = 1, **kw) -> list[tuple[float, float, int, str]]:
    """``measure`` for commands whose ratio is reported: their runs alternate (a, b, a, b ...),
    so a change in the machine's load during the measurement weighs on both alike."""
    runs: list[list[tuple[float, float, int, bytes]]] = [[] for _ in cmds]
    for _ in range(repeat):
        for cmd, taken in zip(cmds, runs):
            wall, cpu, rc, peak, out = _popen_wait4(cmd, **kw)
            if rc not in ok:
                sys.exit(f"{' '.join(map(str, cmd[:5]))} ... failed with status {rc}:\n{out.decode()[-2000:]}")
            taken.append((wall, cpu, peak, out))
    return [(statistics.median(r[0] for r in taken), statistics.median(r[1] for r in taken),
             max(r[2] for r in taken), taken[-1][3].decode("utf-8", "replace")) for taken in runs]


PY = sys.executable
WFLINT = [PY, "-m", "wflint"]
#: the children run as an installed wflint does: with bytecode caches (pip writes them at
#: install time; an environment that forbids them would time the compiler, not wflint)
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

FLOOR_SCRIPT = """
import sys, yaml
loader = yaml.CSafeLoader
for name in sys.argv[1:]:
    with open(name, 'rb') as f:
        yaml.compose(f, Loader=loader)
"""


def files_of(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".json"))


def floor_cmd(folder: Path) -> list[str]:
    # the file list goes through a file: 10 000 paths would overflow a command line
    listing = folder.with_name(folder.name + ".files")
    listing.write_text("\n".join(map(str, files_of(folder))), encoding="utf-8")
    script = FLOOR_SCRIPT.replace("sys.argv[1:]", f"open({str(listing)!r}).read().split(chr(10))")
    return [PY, "-c", script]


# ------------------------------------------------------------------------------ inputs


def ensure_corpus(n: int) -> Path:
    corpus = BENCH / ("corpus" if n == 1000 else f"corpus-{n}")
    if len(files_of(corpus)) != n if corpus.is_dir() else True:
        print(f"making {corpus.relative_to(ROOT)} ({n} files) ...", file=sys.stderr)
        make_corpus.make(n, corpus, 20261122)
    return corpus


def ensure_x10(corpus: Path) -> Path:
    x10 = corpus.with_name(corpus.name + "-x10")
    want = 10 * len(files_of(corpus))
    if not x10.is_dir() or len(files_of(x10)) != want:
        print(f"making {x10.relative_to(ROOT)} ({want} files) ...", file=sys.stderr)
        shutil.rmtree(x10, ignore_errors=True)
        for i in range(10):
            shutil.copytree(corpus, x10 / f"copy{i}", ignore=shutil.ignore_patterns("manifest.tsv"))
    return x10


#: the limits the big-file measures raise (see README "Limits")
BIG_FILE_LIMITS = {"file-bytes": 32 * 1024 * 1024, "nodes": 5_000_000, "blocks": 100_000, "parameters": 100_000}


def ensure_big(megabytes: int) -> Path:
    """One YAML workflow of about ``megabytes`` MB: the largest valid fixture, its blocks
    repeated under fresh labels (as ``make_corpus`` grows files)."""
    out = BENCH / "big" / f"workflow-{megabytes}mb.yaml"
    if out.exists():
        return out
    print(f"making {out.relative_to(ROOT)} ...", file=sys.stderr)
    name, request = max(make_corpus.bases(), key=lambda b: len(json.dumps(b[1])))
    copies, text = 20, ""
    for _ in range(3):  # labels grow with the copy number: aim, measure, correct
        text = make_corpus.to_yaml(make_corpus.grow(request, copies, None))
        if abs(len(text) - megabytes * 1_000_000) < 50_000 * megabytes:
            break
        copies = max(1, round(copies * megabytes * 1_000_000 / len(text)))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"# {copies} copies of fixtures/valid/{name}\n" + text, encoding="utf-8")
    return out


def bare_definitions(corpus: Path, count: int, clean: bool = False) -> list[Path]:
    """Files of the corpus in the bare forms (a definition file, what the schema describes);
    with ``clean``, only those without an injected mistake."""
    rows = [r.split("\t") for r in (corpus / "manifest.tsv").read_text(encoding="utf-8").splitlines()[1:]]
    names = [r[0] for r in rows if r[3] in ("yaml", "json") and (not clean or r[4] == "-")]
    step = max(1, len(names) // count)
    return [corpus / n for n in names[::step][:count]]


def check_jsonschema() -> list[str] | None:
    exe = BENCH_VENV / "bin" / "check-jsonschema"
    if not exe.exists():
        print("installing check-jsonschema into bench/.venv ...", file=sys.stderr)
        try:
            subprocess.run([PY, "-m", "venv", str(BENCH_VENV)], check=True)
            subprocess.run([str(BENCH_VENV / "bin" / "pip"), "install", "-q", "check-jsonschema"], check=True)
        except (subprocess.CalledProcessError, OSError) as exc:
            print(f"check-jsonschema unavailable ({exc}): its rows are skipped", file=sys.stderr)
            return None
    return [str(exe), "--schemafile", str(SCHEMA)]


# ------------------------------------------------------------------------------ serve


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(conn: http.client.HTTPConnection, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
    headers = {"x-api-key": API_KEY}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["content-type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    return resp.status, resp.read()


def load(port: int, clients: int, per_client: int, make_call) -> tuple[float, float, float, int]:
    """(requests/s, p50 ms, p99 ms, failures) for ``clients`` threads of ``per_client`` calls."""
    latencies: list[float] = []
    failures = [0]
    lock = threading.Lock()
    barrier = threading.Barrier(clients + 1)

    def client(i: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        barrier.wait()
        for k in range(per_client):
            t0 = time.perf_counter()
            status, _ = make_call(conn, i, k)
            mine.append(time.perf_counter() - t0)
            if status != 200:
                failures[0] += 1
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000  # noqa: E731
    return len(latencies) / wall, pick(0.50), pick(0.99), failures[0]


def process_cpu(pid: int) -> float | None:
    """CPU seconds a running process has used so far (Linux ``/proc``; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def bench_serve(corpus: Path, per_client_total: int) -> tuple[float, float | None, list[tuple[str, int, float, float, float, int]], int, int]:
    port = free_port()
    cmd = [*WFLINT, "serve", "--port", str(port), "--api-key", f"{API_KEY}=o_bench", "--log-level", "error"]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=CHILD_ENV)
    try:
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                status, _ = request(conn, "GET", "/healthz")
                conn.close()
                if status == 200:
                    break
            except OSError:
                if proc.poll() is not None:
                    sys.exit("wflint serve exited: " + proc.stderr.read().decode()[-2000:])
                if time.perf_counter() - t0 > 30:
                    sys.exit("wflint serve did not answer within 30 s")
                time.sleep(0.005)
        startup = time.perf_counter() - t0
        startup_cpu = process_cpu(proc.pid)
        # a realistic store: 50 workflows from the corpus, as json_definition bodies
        definitions = []
        for f in bare_definitions(corpus, 50, clean=True):
            definitions.append(make_corpus.load_request(f))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        wpids, stored_definitions = [], []
        for d in definitions:
            status, body = request(conn, "POST", "/v1/workflows", {"json_definition": d})
            if status == 200:
                wpids.append(json.loads(body)["workflow_permanent_id"])
                stored_definitions.append(d)
        conn.close()
        if not wpids:
            sys.exit("wflint serve refused every corpus workflow")
        bodies = {w: {"json_definition": d} for w, d in zip(wpids, stored_definitions)}
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        _, page = request(conn, "GET", "/v1/workflows?page=1&page_size=10")
        conn.close()
        page_bytes = len(page)
        rows = []

        def list_call(conn, i, k):
            return request(conn, "GET", "/v1/workflows?page=1&page_size=10")

        def update_call(conn, i, k):
            wpid = wpids[(i * 7 + k) % len(wpids)]
            return request(conn, "POST", f"/v1/workflows/{wpid}", bodies[wpid])

        for name, call in (("list", list_call), ("update", update_call)):
            for clients in (1, 4, 16):
                per_client = max(5, per_client_total // clients)
                rps, p50, p99, failed = load(port, clients, per_client, call)
                rows.append((name, clients, rps, p50, p99, failed))
        return startup, startup_cpu, rows, len(wpids), page_bytes
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ------------------------------------------------------------------------------ report


def table(rows: list[tuple[str, ...]], head: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in (head, *rows)) for i in range(len(head))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    return "\n".join([line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def secs(s: float) -> str:
    return f"{s:.2f} s" if s >= 1 else f"{s * 1000:.0f} ms"


def findings_summary(out: str, corpus: Path) -> str:
    diags = json.loads(out or "[]")
    with_errors = {Path(d["path"]).name for d in diags if d["severity"] == "error"}
    manifest = corpus / "manifest.tsv"
    if not manifest.exists():
        return f"{len(diags)} findings"
    rows = [r.split("\t") for r in manifest.read_text(encoding="utf-8").splitlines()[1:]]
    injected = {r[0] for r in rows if r[4] != "-"}
    return (f"{len(diags)} findings; {len(injected & with_errors)}/{len(injected)} injected mistakes caught, "
            f"{len(with_errors - injected)} clean files with errors")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Measure wflint side by side with its floors.")
    ap.add_argument("--quick", action="store_true", help="200-file corpus, fewer repeats and requests")
    ap.add_argument("--repeat", type=int, default=None, help="runs per short measurement (median; default 5, quick 3)")
    ap.add_argument("--skip", action="append", default=[], choices=["check-jsonschema", "scaling", "big", "serve"],
                    help="leave a section out (repeatable)")
    args = ap.parse_args(argv)
    quick = args.quick
    repeat = args.repeat or (3 if quick else 5)
    n = 200 if quick else 1000
    started = time.perf_counter()

    import wflint

    subprocess.run([PY, "-m", "compileall", "-q", str(Path(wflint.__file__).parent)], check=True, env=CHILD_ENV)
    corpus = ensure_corpus(n)
    files = files_of(corpus)
    size = sum(f.stat().st_size for f in files)
    sizes = sorted(files, key=lambda f: f.stat().st_size)
    one = next(f for f in sizes[len(sizes) // 2:] if f.suffix == ".yaml")
    cj = None if "check-jsonschema" in args.skip else check_jsonschema()

    rows: list[tuple[str, ...]] = []
    figures: dict[str, float] = {}

    cpu_figures: dict[str, float] = {}

    def add(key: str, what: str, measured: tuple, ratio_to: str | None, note: str = "") -> None:
        wall, cpu, rss = measured[:3]
        figures[key], cpu_figures[key] = wall, cpu
        ratio = f"{wall / figures[ratio_to]:.2f}x {ratio_to}" if ratio_to else "1"
        cpu_ratio = f"{cpu / cpu_figures[ratio_to]:.2f}x" if ratio_to else "1"
        rows.append((what, secs(wall), ratio, secs(cpu), cpu_ratio, f"{rss} MB", note))
        print(f"  {what}: {secs(wall)} wall, {secs(cpu)} CPU, {rss} MB", file=sys.stderr, flush=True)

    floor, measured = measure_together([floor_cmd(corpus), [*WFLINT, "check", str(corpus), "--format", "json"]], repeat=3)
    add("floor", f"parse floor: libyaml compose of {n} files, one process", floor, None)
    add("check", f"wflint check, {n} files (default jobs, {os.cpu_count()} CPUs)", measured, "floor", findings_summary(measured[3], corpus))
    add("check-1", f"wflint check --jobs 1, {n} files", measure([*WFLINT, "check", str(corpus), "--format", "json", "--jobs", "1"]), "floor")
    if cj:
        sample = bare_definitions(corpus, 30 if quick else 100)
        add("cj-sample", f"check-jsonschema, {len(sample)} bare definition files", measure([*cj, *map(str, sample)]), None)
        add("check-sample", "wflint check, the same files", measure([*WFLINT, "check", "--format", "concise", *map(str, sample)], repeat=repeat),
            "cj-sample")

    stages = subprocess.run([PY, str(BENCH / "stages.py"), str(corpus), "--rounds", "2" if quick else "3"],
                            capture_output=True, text=True, env=CHILD_ENV)
    if stages.returncode == 0:
        st = json.loads(stages.stdout)
        rows.append((f"in one process: libyaml compose of {n} files (floor)", "", "", secs(st["floor"]), "1", "", ""))
        rows.append(("in one process: wflint's positioned parse", "", "", secs(st["parse"]), f"{st['parse_ratio']:.2f}x", "", ""))
        rows.append(("in one process: api.check_bytes, everything", "", "", secs(st["check"]), f"{st['check_ratio']:.2f}x", "",
                     "bench/stages.py: best of its rounds, caches emptied"))
        print(f"  stages in one process: {stages.stdout.strip()}", file=sys.stderr, flush=True)

    interp, one_file = measure_together([[PY, "-c", "import yaml"], [*WFLINT, "check", str(one)]], repeat=repeat * 4)
    add("interp", "interpreter floor: python -c 'import yaml'", interp, None)
    add("one", f"wflint check, one file ({one.stat().st_size // 1024} KB)", one_file, "interp")
    add("version", "wflint --version", measure([*WFLINT, "--version"], repeat=repeat), "interp")
    add("rule", "wflint rule WF201", measure([*WFLINT, "rule", "WF201"], repeat=repeat), "interp")
    if cj:
        add("cj-one", "check-jsonschema, the same file", measure([*cj, str(one)], repeat=repeat), "interp")
        rows.append(("wflint one file / check-jsonschema one file", "", f"{figures['one'] / figures['cj-one']:.2f}x", "",
                     f"{cpu_figures['one'] / cpu_figures['cj-one']:.2f}x", "", ""))

    if "scaling" not in args.skip:
        x10 = ensure_x10(corpus)
        add("check-x10", f"wflint check, {10 * n} files (the corpus ten times)",
            measure([*WFLINT, "check", str(x10), "--format", "concise"]), "check")
    if "big" not in args.skip:
        # both files are over the default 'file-bytes' (4 MiB) and 'nodes' limits, which a real
        # repository keeps; raised here to measure how the cost grows past them
        raised = [f"--limit={name}={value}" for name, value in BIG_FILE_LIMITS.items()]
        for mb in (5, 10):
            big = ensure_big(mb)
            add(f"big{mb}", f"wflint check, one {big.stat().st_size / 1e6:.1f} MB file (limits raised)",
                measure([*WFLINT, "check", str(big), "--format", "concise", *raised]), "big5" if mb == 10 else None)

    print(f"\nwflint bench: {n} files, {size / 1e6:.1f} MB ({sum(f.suffix == '.json' for f in files)} JSON), "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the end"
          f"{' (--quick)' if quick else ''}\n")
    print(table(rows, ("what", "wall", "wall ratio", "CPU", "CPU ratio", "peak RSS", "note")))

    if "serve" not in args.skip:
        startup, startup_cpu, srows, stored, page_bytes = bench_serve(corpus, 60 if quick else 200)
        cpu_note = f" ({secs(startup_cpu)} CPU)" if startup_cpu is not None else ""
        print(f"\nwflint serve: start-up to the first /healthz answer {secs(startup)}{cpu_note}; {stored} workflows stored; "
              f"list = GET /v1/workflows?page_size=10 ({page_bytes / 1e3:.0f} KB answer); "
              f"update = POST /v1/workflows/{{id}} with a json_definition of 3-60 blocks")
        print(table([(what, str(c), f"{rps:.0f}", f"{p50:.1f} ms", f"{p99:.1f} ms", str(f)) for what, c, rps, p50, p99, f in srows],
                    ("request", "clients", "req/s", "p50", "p99", "non-200")))
    print(f"\n(bench took {time.perf_counter() - started:.0f} s; load average now {os.getloadavg()[0]:.1f})")
    # the guard (bench/guard.py): the one-file ratio always; the corpus ratio at its full size only,
    # as 200 files weigh start-up more
    ratios = {"one": cpu_figures["one"] / cpu_figures["interp"]}
    if not quick:
        ratios = {"check": figures["check"] / figures["floor"], **ratios}
    lines, ok = guard.judge(ratios)
    print("\n" + "\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
