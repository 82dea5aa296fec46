"""The mock as a process on loopback: the worst inputs of issue 12 do not slow other clients
down, SIGTERM stops it within a second, and SIGKILLs mid-load lose no acknowledged write.
Bounded: about 15 s in all."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
KEY = {"x-api-key": "k"}
WAIT = {"block_type": "wait", "label": "a", "wait_sec": 1}
GOOD = {"json_definition": {"title": "t", "workflow_definition": {"parameters": [], "blocks": [WAIT]}}}


def _loops(levels: int) -> dict:
    b: dict = {"label": 5}
    for i in range(levels):
        b = {"block_type": "for_loop", "label": f"l{i}", "loop_blocks": [b]}
    return {"json_definition": {"title": "t", "workflow_definition": {"parameters": [], "blocks": [b]}}}


def _bomb() -> str:
    lines = ["title: t", "workflow_definition: {parameters: [], blocks: []}", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 8)]
    return "\n".join(lines)


#: the reproducers, as (method, path, keyword arguments for httpx)
ATTACKS = [
    ("GET", "/v1/agents", {"params": {"search_key": "%" * 12 + "!"}}),
    ("POST", "/v1/agents", {"json": _loops(25)}),
    ("POST", "/v1/agents", {"json": {"yaml_definition": _bomb()}}),
    ("POST", "/v1/agents", {"json": {"yaml_definition": "x: " + "[" * 20000 + "]" * 20000}}),
    ("POST", "/v1/agents", {"content": '{"json_definition": {"title": "t", "x": ' + "[" * 1000 + "]" * 1000 + "}}"}),
    ("POST", "/v1/agents", {"content": json.dumps(GOOD).replace('"t"', '"\\ud800"')}),
    ("POST", "/v1/agents", {"content": json.dumps(GOOD).replace('"wait_sec": 1', '"wait_sec": NaN')}),
    ("POST", "/v1/agents", {"json": {**GOOD, "json_definition": {**GOOD["json_definition"], "title": "x" * 2_000_000}}}),
    ("POST", "/v1/agents", {"json": {"json_definition": {**GOOD["json_definition"],
                                                         "browser_profile_key": "{{" + "(" * 900 + ")" * 900 + "}}"}}}),
    ("GET", "/v1/agents/wpid_1", {"params": {"version": str(2**64)}}),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(*args: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "wflint.server", "--port", str(port), "--api-key", "k=o_1", *args],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("server did not start") from None
            time.sleep(0.1)
    return proc, base


@pytest.fixture
def server():
    proc, base = _start()
    yield proc, base
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _p99_ms(client: httpx.Client, wpid: str, count: int) -> tuple[float, float]:
    lists, updates = [], []
    for _ in range(count):
        t = time.perf_counter()
        assert client.get("/v1/agents").status_code == 200
        lists.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert client.post(f"/v1/agents/{wpid}", json=GOOD).status_code == 200
        updates.append(time.perf_counter() - t)

    def p99(xs: list[float]) -> float:
        return sorted(xs)[int(len(xs) * 0.99)] * 1000

    return p99(lists), p99(updates)


def test_the_worst_inputs_leave_other_clients_within_twice_their_idle_p99(server):
    _, base = server
    with httpx.Client(base_url=base, headers=KEY, timeout=30) as client:
        wpid = client.post("/v1/agents", json=GOOD).json()["workflow_permanent_id"]
        for _ in range(10):
            client.post("/v1/agents", json=GOOD)
        _p99_ms(client, wpid, 20)  # warm up
        idle_list, idle_update = _p99_ms(client, wpid, 100)

        stop, answers = threading.Event(), []

        # bodies encoded once: the attackers share this process with the measuring client, and
        # encoding a 2 MB body in Python each time would slow the client, not the server
        attacks = [(m, p, {"content": json.dumps(kw["json"]).encode()} if "json" in kw else kw) for m, p, kw in ATTACKS]

        def attacker(n: int) -> None:
            with httpx.Client(base_url=base, headers={**KEY, "content-type": "application/json"}, timeout=30) as c:
                i = n
                while not stop.is_set():
                    method, path, kwargs = attacks[i % len(attacks)]
                    answers.append((i % len(attacks), c.request(method, path, **kwargs).status_code))
                    i += 1

        attackers = [threading.Thread(target=attacker, args=(n,)) for n in range(1)]
        for t in attackers:
            t.start()
        try:
            attack_list, attack_update = _p99_ms(client, wpid, 100)
        finally:
            stop.set()
            for t in attackers:
                t.join(30)
        # every attack answered, never with a 5xx; search answers 200 (it matches nothing)
        assert {n for n, _ in answers} == set(range(len(ATTACKS)))
        assert all(status < 500 for _, status in answers), answers
        assert all(status == 200 for n, status in answers if n == 0)
        assert all(400 <= status < 500 for n, status in answers if n != 0)
        # the machine is shared (2 cores, other work, this test's own client): one scheduling
        # hiccup is the p99 of 100 samples, so an idle p99 under 50 ms counts as 50 ms. Before
        # the fixes a single attack stalled every client for minutes.
        print(f"\np99 ms: list {idle_list:.1f} idle, {attack_list:.1f} under attack; "
              f"update {idle_update:.1f} idle, {attack_update:.1f} under attack; {len(answers)} attacks")
        assert attack_list <= 2 * max(idle_list, 50.0)
        assert attack_update <= 2 * max(idle_update, 50.0)
        # nothing the attacks sent was stored: 11 workflows, as before
        assert len(client.get("/v1/agents", params={"page_size": 100}).json()) == 11


def test_sigterm_stops_the_server_within_a_second_even_mid_request(server):
    proc, base = server
    done = threading.Event()

    def busy() -> None:
        with httpx.Client(base_url=base, headers=KEY, timeout=30) as c:
            while not done.is_set():
                try:
                    c.post("/v1/agents", json=_loops(8))
                except httpx.HTTPError:
                    return

    worker = threading.Thread(target=busy)
    worker.start()
    time.sleep(0.5)
    t = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=5)
    finally:
        done.set()
        worker.join(30)
    assert time.monotonic() - t < 1.0


def test_three_sigkills_mid_load_lose_no_acknowledged_write(tmp_path):
    db = str(tmp_path / "store.sqlite3")
    acknowledged: list[int] = []
    wpid = None
    for _ in range(3):
        proc, base = _start("--db", db)
        try:
            with httpx.Client(base_url=base, headers=KEY, timeout=10) as client:
                if wpid is None:
                    wpid = client.post("/v1/agents", json=GOOD).json()["workflow_permanent_id"]
                    acknowledged.append(1)
                stop = threading.Event()

                def writer() -> None:
                    with httpx.Client(base_url=base, headers=KEY, timeout=10) as c:
                        while not stop.is_set():
                            try:
                                r = c.post(f"/v1/agents/{wpid}", json=GOOD)
                            except httpx.HTTPError:
                                return  # killed mid-request: not acknowledged
                            if r.status_code == 200:
                                acknowledged.append(r.json()["version"])

                writers = [threading.Thread(target=writer) for _ in range(2)]
                for w in writers:
                    w.start()
                time.sleep(0.7)
                proc.kill()  # SIGKILL, mid-load
                proc.wait()
                stop.set()
                for w in writers:
                    w.join(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    proc, base = _start("--db", db)
    try:
        versions = [v["version"] for v in httpx.get(f"{base}/v1/agents/{wpid}/versions", headers=KEY).json()]
    finally:
        proc.kill()
        proc.wait()
    print(f"\n{len(acknowledged)} writes acknowledged across 3 SIGKILLs, {len(versions)} versions stored")
    assert len(acknowledged) > 10
    assert set(acknowledged) <= set(versions)  # every acknowledged write survived
    assert sorted(versions) == list(range(1, len(versions) + 1))  # and no version is torn or doubled
