"""Hostile input, round two (issue 23), the mock: a search term cannot freeze it, a 503 stops
the work behind it, request threads are capped, and seeds go through the HTTP door.
Bounded loops on loopback only; timings are ratios or bounds whose failure means a hang."""

from __future__ import annotations

import asyncio
import random
import re
import threading
import time

import httpx
import pytest

from wflint.server.protocol import budget
from wflint.server.workflows import queries
from wflint.server.protocol.limits import ServerLimits
from wflint.server.store.search import LikeMatcher
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
WAIT = {"block_type": "wait", "label": "a", "wait_sec": 1}


def with_default(text: str, title: str = "t") -> dict:
    param = {"parameter_type": "workflow", "key": "p", "workflow_parameter_type": "string", "default_value": text}
    return {"json_definition": {"title": title, "workflow_definition": {"parameters": [param], "blocks": [WAIT]}}}


# --------------------------------------------------------------------------- the matcher


def reference_like(term: str, text: str) -> bool:
    """ILIKE '%term%' the obvious (backtracking) way, for small inputs only."""
    pattern = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in term.lower())
    return re.search(pattern, text.lower(), re.DOTALL) is not None


def test_the_matcher_agrees_with_ilike_on_random_terms():
    rng = random.Random(23)
    for _ in range(3000):
        text = "".join(rng.choice("abAB_%x") for _ in range(rng.randint(0, 12)))
        term = "".join(rng.choice("abB_%x") for _ in range(rng.randint(1, 6)))
        assert LikeMatcher(term).matches(text) == reference_like(term, text), (term, text)


def test_runs_of_underscore_do_not_multiply_the_cost():
    """The reproducer's shape: 8,000 `_` and a `!`. A regular expression search tries every
    position 8,000 characters deep (about 12 s per MB here); the matcher finds the `!` first."""
    text = "x" * 200_000
    short, long_, found = LikeMatcher("_!"), LikeMatcher("_" * 8000 + "!"), LikeMatcher("_" * 8000 + "x")
    for matcher in (short, long_, found):  # compiled pieces are cached on first use: time the scans
        matcher.matches("x")
    # CPU time of this process: a busy machine (other processes on the cores) stretches wall
    # time, not this
    t = time.process_time()
    for _ in range(20):
        assert not short.matches(text)
    baseline = (time.process_time() - t) / 20
    t = time.process_time()
    assert not long_.matches(text)
    assert found.matches(text)
    assert (time.process_time() - t) / 2 < 20 * max(baseline, 1e-3)


def test_a_long_scan_looks_at_the_budget():
    class Stop(Exception):
        pass

    def check():
        raise Stop

    with pytest.raises(Stop):  # the worst term the search-chars limit allows, on a 1 MB text
        LikeMatcher("a_" * 499 + "b", check).matches("ab" * 500_000)


def test_a_term_over_search_chars_is_a_422_in_the_query_shape():
    client = make_client()
    r = client.get("/v1/agents", params={"search_key": "_" * 8000 + "!"}, headers=A)
    assert r.status_code == 422
    (error,) = r.json()["detail"]
    assert error["loc"] == ["query", "search_key"] and error["ctx"] == {"max_length": 1000}
    assert client.get("/v1/agents", params={"title": "_" * 1000}, headers=A).status_code == 200


def test_a_default_is_still_found_by_underscores():
    client = make_client()
    assert client.post("/v1/agents", json=with_default("needle in a haystack"), headers=A).status_code == 200
    found = client.get("/v1/agents", params={"search_key": "n__dle_in"}, headers=A).json()
    assert len(found) == 1
    assert client.get("/v1/agents", params={"search_key": "n__dle_out"}, headers=A).json() == []


# --------------------------------------------------------------------------- budgets stop work


def request_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "wflint-request" and t.is_alive())


def test_a_503_stops_the_list_scan_behind_it(monkeypatch):
    state = make_state(limits=ServerLimits(request_seconds=0.3))
    client = make_client(state)
    for i in range(40):
        assert client.post("/v1/agents", json=with_default(f"text {i}"), headers=A).status_code == 200
    real = queries._matches

    def slow(*args):
        time.sleep(0.1)  # 40 rows: 4 s of work if nothing stops it
        return real(*args)

    monkeypatch.setattr(queries, "_matches", slow)
    before = request_threads()
    r = client.get("/v1/agents", params={"search_key": "zzz"}, headers=A)
    assert r.status_code == 503
    deadline = time.monotonic() + 2.0
    while request_threads() > before and time.monotonic() < deadline:
        time.sleep(0.02)
    assert request_threads() == before, "the abandoned scan kept running after its 503"


def test_request_threads_are_capped_for_every_kind_of_request():
    slots = threading.Semaphore(2)
    lock, running, peak = threading.Lock(), [0], [0]

    def work(_):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.05)
        with lock:
            running[0] -= 1
        return "ok"

    async def flood():
        return await asyncio.gather(*(budget.run_in_thread(work, 5.0, threads=slots) for _ in range(8)))

    assert asyncio.run(flood()) == ["ok"] * 8
    assert peak[0] == 2


def test_the_app_passes_its_thread_cap_to_every_request(monkeypatch):
    state = make_state(limits=ServerLimits(request_threads=3))
    lock, running, peak = threading.Lock(), [0], [0]

    def held(*_args):
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.1)
        with lock:
            running[0] -= 1
        return []

    monkeypatch.setattr(queries, "list_workflows", held)
    monkeypatch.setattr(queries, "get_workflow", held)
    from wflint.server.http.app import create_app

    async def flood():
        transport = httpx.ASGITransport(app=create_app(state=state))
        async with httpx.AsyncClient(transport=transport, base_url="http://mock") as c:
            calls = [c.get("/v1/agents", headers=A) for _ in range(5)] + [c.get("/v1/agents/w", headers=A) for _ in range(5)]
            return await asyncio.gather(*calls)

    assert all(r.status_code == 200 for r in asyncio.run(flood()))
    assert peak[0] == 3


def test_waiting_for_a_slot_past_the_budget_is_a_503():
    slots = threading.Semaphore(1)
    release = threading.Event()

    async def two():
        first = asyncio.ensure_future(budget.run_in_thread(lambda _: release.wait(5), 5.0, threads=slots))
        await asyncio.sleep(0.05)
        try:
            await budget.run_in_thread(lambda _: "never", 0.2, threads=slots)
        except budget.Reply as reply:
            return reply.status
        finally:
            release.set()
            await first

    assert asyncio.run(two()) == 503


# --------------------------------------------------------------------------- the process, under the worst search


def test_healthz_and_sigterm_answer_while_the_worst_searches_run():
    """Three lists of the costliest term the limits allow over a 6 MB stored default: the
    mock still answers /healthz and stops on SIGTERM (before: /healthz hung 53 s, SIGTERM 42 s).
    The bounds are generous (a failure means a hang); the figures are printed."""
    import signal

    from test_server_under_attack import _start

    proc, base = _start()
    try:
        # one searched text of 6 MB (a JSON default is searched as its JSON text): a regular
        # expression holds the interpreter lock for its whole scan, several seconds here
        params = [{"parameter_type": "workflow", "key": "p", "workflow_parameter_type": "json",
                   "default_value": ["ab" * 500_000] * 6}]
        body = {"json_definition": {"title": "t", "workflow_definition": {"parameters": params, "blocks": [WAIT]}}}
        with httpx.Client(base_url=base, headers={"x-api-key": "k"}, timeout=60) as c:
            assert c.post("/v1/agents", json=body).status_code == 200
        statuses: list[int] = []

        def worst() -> None:
            try:
                with httpx.Client(base_url=base, headers={"x-api-key": "k"}, timeout=60) as c:
                    statuses.append(c.get("/v1/agents", params={"search_key": "a_" * 499 + "b"}).status_code)
            except httpx.HTTPError:
                statuses.append(0)  # cut off by SIGTERM

        workers = [threading.Thread(target=worst) for _ in range(3)]
        for w in workers:
            w.start()
        time.sleep(0.5)
        health = []
        for _ in range(5):
            t = time.monotonic()
            assert httpx.get(base + "/healthz", timeout=30).status_code == 200
            health.append(time.monotonic() - t)
        t = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        stop = time.monotonic() - t
        for w in workers:
            w.join(60)
        print(f"\n/healthz max {max(health) * 1000:.0f} ms during the worst searches; SIGTERM exit {stop * 1000:.0f} ms")
        assert max(health) < 5.0
        assert stop < 5.0
        assert all(s in (0, 200, 503) for s in statuses), statuses
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --------------------------------------------------------------------------- connections


def _closed_by_server(sock, within: float) -> bool:
    """True when the server closes the connection (EOF or reset) within ``within`` seconds."""
    import socket

    sock.settimeout(within)
    try:
        while True:
            data = sock.recv(4096)
            if not data:
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def _connect(base: str):
    import socket

    host, port = base.removeprefix("http://").split(":")
    return socket.create_connection((host, int(port)), timeout=5)


def test_idle_slow_and_surplus_connections_are_closed():
    from test_server_under_attack import _start

    proc, base = _start("--limit", "header-seconds=1", "--limit", "body-seconds=1", "--limit", "connections=20")
    socks = []
    try:
        idle = [_connect(base) for _ in range(15)]
        socks += idle
        time.sleep(0.2)
        surplus = [_connect(base) for _ in range(10)]  # 25 open: 5 over the cap
        socks += surplus
        assert sum(_closed_by_server(s, 0.5) for s in surplus) >= 5

        slow_headers = _connect(base)
        slow_body = _connect(base)
        socks += [slow_headers, slow_body]
        t = time.monotonic()
        slow_body.sendall(b"POST /v1/agents HTTP/1.1\r\nHost: x\r\nx-api-key: k\r\ncontent-type: application/json\r\n"
                          b"Content-Length: 100\r\n\r\n{\"json")
        closed_headers = False
        for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\n":  # one byte each 0.1 s: never done in 1 s
            try:
                slow_headers.sendall(bytes([byte]))
            except OSError:
                closed_headers = True
                break
            if time.monotonic() - t > 4:
                break
            time.sleep(0.1)
        closed_headers = closed_headers or _closed_by_server(slow_headers, 5)
        assert closed_headers, "a client trickling its headers held its connection"
        assert _closed_by_server(slow_body, 5), "a client stalling in its body held its connection"
        assert all(_closed_by_server(s, 5) for s in idle), "idle connections were never closed"
        assert httpx.get(base + "/healthz", timeout=5).status_code == 200
    finally:
        for s in socks:
            s.close()
        proc.kill()
        proc.wait()


def test_more_idle_clients_than_descriptors_do_not_take_the_mock_down():
    """Under a descriptor limit of 200 the cap is 136 connections; 250 idle clients are
    refused or timed out and /healthz answers again within the header deadline."""
    import os
    import resource
    import signal
    import subprocess
    import sys

    from test_server_under_attack import SRC, _free_port

    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "wflint.server", "--port", str(port), "--api-key", "k=o_1",
                             "--limit", "header-seconds=1"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200)))
    base = f"http://127.0.0.1:{port}"
    socks = []
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and proc.poll() is None, "server did not start"
                time.sleep(0.1)
        for _ in range(250):
            socks.append(_connect(base))
        time.sleep(0.2)
        answered = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                answered = httpx.get(base + "/healthz", timeout=2).status_code
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert answered == 200
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    finally:
        for s in socks:
            s.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()


# --------------------------------------------------------------------------- seeds through the door

ORG = "o_100000000000000000"


def seed_json(tmp_path, name: str, text: str):
    from wflint.server.seed import seed

    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    state = make_state(limits=ServerLimits(string_chars=1000))
    failures: list = []
    seeded = seed(state, ORG, [str(f)], failures)
    return state, seeded, failures


def flow_json(**fields) -> str:
    import json

    definition = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [WAIT]}, **fields}
    return json.dumps(definition)


@pytest.mark.parametrize("text, reason", [
    (flow_json(description="x").replace('"x"', '"\\ud800"'), "string_unicode"),
    (flow_json().replace('"t"', '"\\udfff"', 1), "string_unicode"),
    (flow_json(title="x" * 2000), "string_too_long"),
    ('{"json_definition": ' + "[" * 100_000 + "]" * 100_000 + "}", "json_invalid"),
])
def test_a_json_seed_meets_the_door_checks_of_a_request(tmp_path, text, reason):
    state, seeded, failures = seed_json(tmp_path, "flow.json", text)
    assert seeded == [] and len(failures) == 1 and reason in failures[0].reason
    client = make_client(state)
    assert client.get("/v1/agents", headers=A).status_code == 200


def test_a_yaml_seed_that_is_a_body_meets_the_door_checks_too(tmp_path):
    text = "json_definition:\n  title: " + "x" * 2000 + "\n  workflow_definition: {parameters: [], blocks: []}\n"
    _, seeded, failures = seed_json(tmp_path, "flow.yaml", text)
    assert seeded == [] and "string-chars" in failures[0].reason


def test_seed_strict_refuses_to_start_on_a_door_refusal(tmp_path):
    from wflint.server.seed import SeedError, seed

    f = tmp_path / "flow.json"
    f.write_text('{"json_definition": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(SeedError, match="json_invalid"):
        seed(make_state(), ORG, [str(f)])


def test_a_seed_file_name_that_is_not_utf8_is_seeded_and_shown_escaped(tmp_path):
    import os
    import subprocess
    import sys

    from test_server_under_attack import SRC, _free_port

    seeds = tmp_path / "seeds"
    seeds.mkdir()
    name = os.fsdecode(b"flow\xff.yaml")
    (seeds / name).write_text("title: Odd\nworkflow_definition:\n  parameters: []\n  blocks:\n"
                              "    - {block_type: wait, label: a, wait_sec: 1}\n")
    (seeds / "bad.json").write_text(flow_json().replace('"t"', '"\\ud800"', 1))
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
           "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.Popen([sys.executable, "-m", "wflint.server", "--port", str(port), "--api-key", "k=o_1",
                             "--seed", str(seeds)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read().decode(errors="replace")
        listed = httpx.get(base + "/v1/agents", headers={"x-api-key": "k"}, timeout=10)
        assert listed.status_code == 200 and [w["title"] for w in listed.json()] == ["Odd"]
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert "flow\\xff.yaml" in out.decode("utf-8")
    assert "bad.json: not seeded" in err.decode("utf-8") and "string_unicode" in err.decode("utf-8")
