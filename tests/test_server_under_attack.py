"""The mock as a process on loopback: the worst inputs of issue 12 do not slow other clients
down, SIGTERM stops it mid-request about as fast as when idle, and SIGKILLs mid-load lose no
acknowledged write.
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


def _latencies(client: httpx.Client, wpid: str, count: int) -> tuple[list[float], list[float]]:
    """Seconds taken by ``count`` lists and ``count`` updates, alternating."""
    lists, updates = [], []
    for _ in range(count):
        t = time.perf_counter()
        assert client.get("/v1/agents").status_code == 200
        lists.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert client.post(f"/v1/agents/{wpid}", json=GOOD).status_code == 200
        updates.append(time.perf_counter() - t)
    return lists, updates


def _measured_beside(base: str, client: httpx.Client, wpid: str, requests: list) -> tuple[list[float], list[float], list]:
    """The measuring client's latencies while a second client sends ``requests`` back to back,
    and that client's (index, status) answers."""
    stop, answers = threading.Event(), []

    def other() -> None:
        with httpx.Client(base_url=base, headers={**KEY, "content-type": "application/json"}, timeout=30) as c:
            i = 0
            while not stop.is_set():
                method, path, kwargs = requests[i % len(requests)]
                answers.append((i % len(requests), c.request(method, path, **kwargs).status_code))
                i += 1

    thread = threading.Thread(target=other)
    thread.start()
    try:
        lists, updates = _latencies(client, wpid, 100)
    finally:
        stop.set()
        thread.join(30)
    return lists, updates, answers


def test_the_worst_inputs_slow_other_clients_no_more_than_an_ordinary_client_does(server):
    _, base = server
    with httpx.Client(base_url=base, headers=KEY, timeout=30) as client:
        wpid = client.post("/v1/agents", json=GOOD).json()["workflow_permanent_id"]
        for _ in range(10):
            client.post("/v1/agents", json=GOOD)
        _latencies(client, wpid, 20)  # warm up
        # bodies encoded once: the other client shares this process with the measuring one, and
        # encoding a 2 MB body in Python each time would slow the client, not the server
        attacks = [(m, p, {"content": json.dumps(kw["json"]).encode()} if "json" in kw else kw) for m, p, kw in ATTACKS]
        ordinary = [("GET", "/v1/agents", {}), ("POST", f"/v1/agents/{wpid}", {"content": json.dumps(GOOD).encode()})]
        # the yardstick is measured in this run, beside an ordinary second client, so that the
        # machine's load (2 shared cores) weighs on both sides of the comparison alike; no
        # absolute bound (a p99 under 100 ms failed once at load 5 on correct code)
        control_list, control_update, control_answers = _measured_beside(base, client, wpid, ordinary)
        attack_list, attack_update, answers = _measured_beside(base, client, wpid, attacks)
        # every attack answered, never with a 5xx; search answers 200 (it matches nothing)
        assert {n for n, _ in answers} == set(range(len(ATTACKS)))
        assert all(status < 500 for _, status in answers), answers
        assert all(status == 200 for n, status in answers if n == 0)
        assert all(400 <= status < 500 for n, status in answers if n != 0)
        assert control_answers and all(status == 200 for _, status in control_answers)
        # the total time of 100 requests: one stalled request (before the fixes a single attack
        # stalled every client for minutes) shows in it whole, while a scheduling hiccup of a
        # shared machine is a few percent of it
        print(f"\nseconds for 100 requests: list {sum(control_list):.2f} beside an ordinary client, "
              f"{sum(attack_list):.2f} beside the attacks; update {sum(control_update):.2f} / "
              f"{sum(attack_update):.2f}; {len(answers)} attacks, {len(control_answers)} ordinary requests")
        assert sum(attack_list) <= 4 * sum(control_list)
        assert sum(attack_update) <= 4 * sum(control_update)
        # nothing the attacks sent was stored: 11 workflows, as before
        assert len(client.get("/v1/agents", params={"page_size": 100}).json()) == 11


def _seconds_to_stop(proc: subprocess.Popen) -> float:
    t = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)
    return time.monotonic() - t


def test_sigterm_mid_request_stops_the_server_about_as_fast_as_when_idle(server):
    from wflint.server.cli import SHUTDOWN_GRACE_SECONDS

    # the yardstick, in this run: an idle server's SIGTERM to exit (process teardown, which a
    # loaded machine slows; an absolute "under a second" failed at load 8 on correct code)
    idle_proc, _ = _start()
    idle = _seconds_to_stop(idle_proc)
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
    try:
        mid_request = _seconds_to_stop(proc)
    finally:
        done.set()
        worker.join(30)
    print(f"\nSIGTERM to exit: {idle:.2f} s idle, {mid_request:.2f} s mid-request (grace {SHUTDOWN_GRACE_SECONDS} s)")
    # in-flight requests get the grace period (under a second), no more: never a wait for them
    assert SHUTDOWN_GRACE_SECONDS <= 1
    assert mid_request <= 3 * (idle + SHUTDOWN_GRACE_SECONDS)


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
