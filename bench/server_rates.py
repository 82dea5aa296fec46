"""Requests per second of the mock's list and update calls, on loopback.

    python bench/server_rates.py [--seconds 5] [--workflows 50]

Starts ``python -m wflint.server`` on a free 127.0.0.1 port (in-memory store), creates
``--workflows`` workflows, then for ``--seconds`` each runs list calls (``page_size=10``,
plus a ``search_key`` list) and update calls from one client, and prints requests per second
and the p50/p99 latency of each. One client, so the figures measure the server's per-request
cost rather than the machine's parallelism. On a shared machine the wall-clock rate moves
with the other users' load; the server's own CPU time per request (read from ``/proc``) does
not, so it is printed too, with the rate that CPU time alone would allow.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

SRC = Path(__file__).resolve().parents[1] / "src"
KEY = "bench-key"
HEADERS = {"x-api-key": KEY}


def body(title: str) -> dict:
    return {"json_definition": {"title": title, "workflow_definition": {
        "parameters": [{"parameter_type": "workflow", "key": "url", "workflow_parameter_type": "string"}],
        "blocks": [{"block_type": "goto_url", "label": "open", "url": "{{ url }}"},
                   {"block_type": "wait", "label": "pause", "wait_sec": 2}]}}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(port: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "wflint.server", "--port", str(port), "--api-key",
                             f"{KEY}=o_bench"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("server did not start")


#: one entry per request made, to count them across measures
CALLS: list[None] = []


def server_cpu(pid: int) -> float:
    """CPU seconds (user + system) the server process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(client: httpx.Client, seconds: float, call) -> tuple[float, float, float]:
    times = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        r = call(client)
        CALLS.append(None)
        times.append(time.perf_counter() - t0)
        if r.status_code != 200:
            raise SystemExit(f"unexpected {r.status_code}: {r.text[:200]}")
    times.sort()
    return len(times) / sum(times), statistics.median(times) * 1000, times[int(len(times) * 0.99)] * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--workflows", type=int, default=50)
    args = ap.parse_args()
    port = free_port()
    proc = start(port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers=HEADERS, timeout=30) as c:
            wpids = [c.post("/v1/agents", json=body(f"bench {i}")).json()["workflow_permanent_id"]
                     for i in range(args.workflows)]
            calls = {
                "list": lambda c: c.get("/v1/agents", params={"page_size": 10}),
                "list search": lambda c: c.get("/v1/agents", params={"search_key": "bench 4"}),
                "update": lambda c, n=iter(range(10**9)): c.post(f"/v1/agents/{wpids[next(n) % len(wpids)]}",
                                                                 json=body("updated")),
            }
            for name, call in calls.items():
                cpu0, count0 = server_cpu(proc.pid), len(CALLS)
                rate, p50, p99 = measure(c, args.seconds, call)
                cpu_ms = (server_cpu(proc.pid) - cpu0) * 1000 / max(1, len(CALLS) - count0)
                print(f"{name:12s} {rate:7.1f} req/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms   "
                      f"server CPU {cpu_ms:5.2f} ms/request (at most {1000 / cpu_ms:6.0f} req/s on one core)")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    main()
