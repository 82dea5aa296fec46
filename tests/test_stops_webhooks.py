"""Webhooks stop (issue 29): a total deadline per attempt, no redirects followed, and delivered
apart from the run workers, so receivers that drip or hang never hold a run."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from run_fakes import FakeEngine, Receiver
from wflint.server.runs import webhooks
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
B = {"x-api-key": "key-b"}


class RawServer:
    """A loopback server answering every connection with ``answer(conn)`` in its own thread."""

    def __init__(self, answer) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.answer = answer
        self.closed = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.closed.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn) -> None:
        try:
            conn.recv(65536)
            self.answer(conn, self.closed)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.closed.set()
        self.sock.close()


def drip(conn, closed) -> None:
    """One byte of a status line every tenth of a second, for ever."""
    while not closed.is_set():
        conn.sendall(b"H")
        time.sleep(0.1)


def drip_headers(conn, closed) -> None:
    """A status line, then one header every tenth of a second, for ever."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    while not closed.is_set():
        conn.sendall(b"X-Drip: 1\r\n")
        time.sleep(0.1)


@pytest.fixture
def dripping():
    server = RawServer(drip)
    yield server
    server.close()


@pytest.mark.parametrize("answer", [drip, drip_headers])
def test_a_dripping_receiver_is_given_up_at_the_total_deadline(answer):
    dripping = RawServer(answer)
    hook = webhooks.sign(dripping.url + "/hook", {"status": "completed"}, "key")
    began = time.monotonic()
    outcome = webhooks.deliver(hook, sleep=lambda s: None, timeout=1.0)
    # per-read timeouts never fire here: a byte comes every 0.1 s; three attempts of 1 s each
    assert time.monotonic() - began < 60
    assert outcome == "Webhook delivery failed before receiving a response: ReadTimeout"
    dripping.close()


def test_a_redirect_is_not_followed():
    target = Receiver()
    redirect = RawServer(lambda conn, closed: conn.sendall(
        b"HTTP/1.1 302 Found\r\nLocation: " + target.url.encode() + b"/stolen\r\nContent-Length: 5\r\n\r\nmoved"))
    try:
        hook = webhooks.sign(redirect.url + "/hook", {"status": "completed"}, "key")
        outcome = webhooks.deliver(hook, sleep=lambda s: None)
        assert outcome == "Webhook failed with status code 302, error message: moved"
        time.sleep(0.2)
        assert target.received == []  # neither the body nor its signature went anywhere else
    finally:
        redirect.close()
        target.close()


def test_dripping_receivers_do_not_hold_other_organizations_runs(dripping, monkeypatch):
    monkeypatch.setattr(webhooks, "TIMEOUT_SECONDS", 600.0)  # the receivers hold their deliveries
    client = make_client(make_state(run_executor=FakeEngine()))
    body = {"title": "hooks", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "first", "code": "x = 1"}]}}

    def start(headers, hook=None):
        wpid = client.post("/v1/agents", json={"json_definition": body}, headers=headers).json()["workflow_permanent_id"]
        json = {"agent_id": wpid, **({"webhook_url": hook} if hook else {})}
        r = client.post("/v1/run/agents", json=json, headers=headers)
        assert r.status_code == 200, r.text
        return r.json()["run_id"]

    held = [start(A, dripping.url + f"/hook{i}") for i in range(6)]
    other = start(B)
    deadline = time.monotonic() + 60
    while client.get(f"/v1/runs/{other}", headers=B).json()["status"] != "completed":
        assert time.monotonic() < deadline, "a run waited for another organization's webhooks"
        time.sleep(0.05)
    for run_id in held:  # the dripping ones finished their runs too; only their delivery waits
        assert client.get(f"/v1/runs/{run_id}", headers=A).json()["status"] == "completed"
