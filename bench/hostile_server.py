"""The mock under the worst requests of issue 23 (a script, not a test): /healthz latency and
SIGTERM time while the costliest list searches run, and idle connections against a descriptor
limit.

    python bench/hostile_server.py                  # 3 searches, 3 x 1 MB of stored defaults
    python bench/hostile_server.py --searches 6 --mb 2

Before issue 23 one search of 8,000 `_` and a `!` over a 10 MB default froze the process:
/healthz answered after 53 s, SIGTERM after 42 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

SRC = Path(__file__).resolve().parents[1] / "src"
WAIT = {"block_type": "wait", "label": "a", "wait_sec": 1}


def start(*args: str, nofile: int | None = None) -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) if nofile else None
    proc = subprocess.Popen([sys.executable, "-m", "wflint.server", "--port", str(port), "--api-key", "k=o_1", *args],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=limit)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the mock did not start")


def worst_searches(searches: int, mb: int) -> None:
    proc, base = start()
    params = [{"parameter_type": "workflow", "key": f"p{i}", "workflow_parameter_type": "string",
               "default_value": "ab" * 500_000} for i in range(mb)]
    body = {"json_definition": {"title": "t", "workflow_definition": {"parameters": params, "blocks": [WAIT]}}}
    with httpx.Client(base_url=base, headers={"x-api-key": "k"}, timeout=120) as c:
        assert c.post("/v1/agents", json=body).status_code == 200
    answers: list[tuple[int, float]] = []

    def search() -> None:
        t = time.monotonic()
        try:
            with httpx.Client(base_url=base, headers={"x-api-key": "k"}, timeout=120) as c:
                answers.append((c.get("/v1/agents", params={"search_key": "a_" * 499 + "b"}).status_code,
                                time.monotonic() - t))
        except httpx.HTTPError:
            answers.append((0, time.monotonic() - t))

    workers = [threading.Thread(target=search) for _ in range(searches)]
    for w in workers:
        w.start()
    time.sleep(0.3)
    health = []
    for _ in range(20):
        t = time.monotonic()
        httpx.get(base + "/healthz", timeout=60)
        health.append(time.monotonic() - t)
        time.sleep(0.05)
    for w in workers:
        w.join()
    print(f"{searches} worst searches over {mb} MB of defaults: answers {sorted(answers)}")
    print(f"  /healthz meanwhile: max {max(health) * 1000:.0f} ms, median {sorted(health)[len(health) // 2] * 1000:.0f} ms")
    for w in (workers := [threading.Thread(target=search) for _ in range(searches)]):
        w.start()
    time.sleep(0.5)
    t = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    print(f"  SIGTERM during {searches} worst searches: exited in {(time.monotonic() - t) * 1000:.0f} ms")
    for w in workers:
        w.join()


def idle_clients(count: int, nofile: int) -> None:
    proc, base = start("--limit", "header-seconds=2", nofile=nofile)
    host, port = base.removeprefix("http://").split(":")
    socks = [socket.create_connection((host, int(port))) for _ in range(count)]
    t = time.monotonic()
    answered = None
    while time.monotonic() - t < 30:
        try:
            answered = httpx.get(base + "/healthz", timeout=1).status_code
            break
        except httpx.HTTPError:
            time.sleep(0.1)
    took = time.monotonic() - t
    closed = 0
    for s in socks:
        s.settimeout(5)
        try:
            closed += s.recv(1) == b""
        except OSError:
            closed += 1
        s.close()
    print(f"{count} idle clients under ulimit -n {nofile}: /healthz {answered} after {took:.1f} s; "
          f"{closed} of {count} closed by the server (header-seconds=2)")
    proc.kill()
    proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--searches", type=int, default=3)
    ap.add_argument("--mb", type=int, default=3)
    ap.add_argument("--idle", type=int, default=1100)
    ap.add_argument("--nofile", type=int, default=1024)
    args = ap.parse_args()
    worst_searches(args.searches, args.mb)
    idle_clients(args.idle, args.nofile)


if __name__ == "__main__":
    main()
