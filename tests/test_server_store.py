"""The SQLite store: version numbering under concurrency, durability, atomicity (issue §6)."""

from __future__ import annotations

import threading

import pytest

from wflint.server.store.database import Store
from wflint.server.testing import make_client, make_state

A = {"x-api-key": "key-a"}
ORG = "o_100000000000000000"


def body(title="t"):
    return {"json_definition": {"title": title, "workflow_definition": {
        "parameters": [], "blocks": [{"block_type": "wait", "label": "a", "wait_sec": 1}]}}}


def hammer(clients, wpid, per_writer=50):
    errors: list[str] = []

    def writer(client, n):
        for i in range(per_writer):
            r = client.post(f"/v1/agents/{wpid}", json=body(f"w{n}-{i}"), headers=A)
            if r.status_code != 200:
                errors.append(r.text)

    threads = [threading.Thread(target=writer, args=(c, n)) for n, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


def test_eight_writers_fifty_updates_each_in_memory():
    state = make_state()
    clients = [make_client(state) for _ in range(8)]
    wpid = clients[0].post("/v1/agents", json=body(), headers=A).json()["workflow_permanent_id"]
    assert hammer(clients, wpid) == []
    assert state.store.version_numbers(wpid) == list(range(1, 402))


def test_eight_writers_on_two_connections_to_one_file(tmp_path):
    db = str(tmp_path / "store.db")
    states = [make_state(db_path=db), make_state(db_path=db)]  # like two server processes
    clients = [make_client(states[n % 2]) for n in range(8)]
    wpid = clients[0].post("/v1/agents", json=body(), headers=A).json()["workflow_permanent_id"]
    assert hammer(clients, wpid) == []
    assert states[1].store.version_numbers(wpid) == list(range(1, 402))
    versions = clients[1].get(f"/v1/agents/{wpid}/versions", headers=A).json()
    assert len({v["workflow_id"] for v in versions}) == 401


def test_everything_survives_a_restart(tmp_path):
    db = str(tmp_path / "store.db")
    client = make_client(make_state(db_path=db))
    wf = client.post("/v1/agents", json=body("kept"), headers=A).json()
    client.post(f"/v1/agents/{wf['workflow_permanent_id']}", json=body("kept v2"), headers=A)
    script = client.post("/v1/scripts", json={"files": [{"path": "a.txt", "content": "aGk="}]}, headers=A).json()
    client.app.state.wflint.store.close()

    again = make_client(make_state(db_path=db))
    listed = again.get("/v1/agents", headers=A).json()
    assert [(w["title"], w["version"]) for w in listed] == [("kept v2", 2)]
    assert again.get(f"/v1/agents/{wf['workflow_permanent_id']}", params={"version": 1}, headers=A).json() == {
        **wf, "effective_default_engine": None}
    assert again.app.state.wflint.store.script_files(script["script_id"]) == [("a.txt", b"hi")]
    nxt = again.post(f"/v1/agents/{wf['workflow_permanent_id']}", json=body(), headers=A).json()
    assert nxt["version"] == 3


def test_a_failed_write_leaves_no_version():
    store = Store()

    def build(previous, version):
        doc = {"workflow_id": f"w_{version}", "organization_id": ORG, "title": "t", "status": "published",
               "is_saved_task": False, "created_at": "2026-01-01T00:00:00.000000", "version": version}
        return doc, []

    store.write_version(ORG, "wpid_1", build)

    def broken(previous, version):
        raise RuntimeError("crash while building")

    with pytest.raises(RuntimeError):
        store.write_version(ORG, "wpid_1", broken)
    store.write_version(ORG, "wpid_1", build)
    assert store.version_numbers("wpid_1") == [1, 2]


def test_a_wpid_of_another_organization_is_never_written():
    store = Store()
    ok = lambda prev, v: ({"workflow_id": f"w_{v}", "organization_id": ORG, "title": "t", "status": "published",  # noqa: E731
                           "is_saved_task": False, "created_at": "x", "version": v}, [])
    store.write_version(ORG, "wpid_1", ok)
    with pytest.raises(Exception):
        store.write_version("o_other", "wpid_1", ok)
    assert store.version_numbers("wpid_1") == [1]
