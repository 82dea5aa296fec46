"""Mock server edges: --seed reports invalid files and seeds the rest (--seed-strict refuses),
a port in use is a usage error said before anything claims to serve, and the run endpoints
say that the mock does not run workflows."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")

from wflint.server.seed import NotSeeded, seed  # noqa: E402
from wflint.server.testing import make_client, make_state  # noqa: E402

from test_server_seed import BARE_YAML, ORG  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src"


def test_seed_reports_each_invalid_file_and_seeds_the_rest(tmp_path):
    (tmp_path / "good.yaml").write_text(BARE_YAML)
    (tmp_path / "bad.yaml").write_text(BARE_YAML.replace("wait_sec: 1", "wait_sec: 0"))
    (tmp_path / "worse.json").write_text('{"title": "x", "workflow_definition": ')
    failures: list[NotSeeded] = []
    seeded = seed(make_state(), ORG, [str(tmp_path)], failures)
    assert [s.title for s in seeded] == ["Bare"]
    assert sorted(Path(f.path).name for f in failures) == ["bad.yaml", "worse.json"]
    bad = next(f for f in failures if f.path.endswith("bad.yaml"))
    assert bad.reason.startswith("the service would answer 422") and "not seeded" in bad.line()


def _serve(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "wflint.server", *args], capture_output=True, text=True,
                          timeout=30, env={"PYTHONPATH": str(SRC), "PATH": ""})


def test_seed_strict_refuses_to_start(tmp_path):
    (tmp_path / "bad.yaml").write_text(BARE_YAML.replace("wait_sec: 1", "wait_sec: 0"))
    r = _serve("--port", "0", "--api-key", "k=o_1", "--seed", str(tmp_path), "--seed-strict")
    assert r.returncode == 2 and "seed failed" in r.stderr and "422" in r.stderr
    assert "serving" not in r.stdout


def test_a_port_in_use_is_a_usage_error_before_serving():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = _serve("--port", str(port), "--api-key", "k=o_1")
    assert r.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in r.stderr and "choose another --port" in r.stderr
    assert "serving" not in r.stdout and "Traceback" not in r.stderr


def test_a_port_in_use_is_one_line_before_the_seed_list(tmp_path):
    """The port is taken before the store opens and the seeds are made: the whole answer is one
    line on standard error, no seed list first (issue 35)."""
    (tmp_path / "good.yaml").write_text(BARE_YAML)
    (tmp_path / "bad.yaml").write_text(BARE_YAML.replace("wait_sec: 1", "wait_sec: 0"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = _serve("--port", str(port), "--api-key", "k=o_1", "--seed", str(tmp_path))
    assert r.returncode == 2
    assert r.stdout == ""  # no `wpid<TAB>title<TAB>path` lines
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"wflint serve: cannot listen on 127.0.0.1:{port}")


@pytest.mark.parametrize("method, path", [("POST", "/v1/run/tasks"), ("POST", "/v1/runs/cancel"),
                                          ("GET", "/v1/runs/wr_1/artifacts"), ("POST", "/v1/workflows/run")])
def test_unserved_run_endpoints_say_what_the_mock_does_not_have(method, path):
    c = make_client()
    r = c.request(method, path, headers={"x-api-key": "key-a"}, json={"workflow_id": "wpid_1"})
    assert r.status_code == 501
    assert "has no task runs" in r.json()["detail"] and path in r.json()["detail"]
    assert c.request(method, path, json={}).status_code == 403  # auth still comes first


def test_seed_walk_is_safe_and_reports_a_dangling_link(tmp_path):
    import os

    (tmp_path / "good.yaml").write_text(BARE_YAML)
    os.mkfifo(tmp_path / "pipe.yaml")  # the old walk blocked here forever
    os.symlink("gone.yaml", tmp_path / "lock.yaml")
    failures: list[NotSeeded] = []
    seeded = seed(make_state(), ORG, [str(tmp_path)], failures)
    assert [s.title for s in seeded] == ["Bare"]
    assert [(Path(f.path).name, "does not exist" in f.reason) for f in failures] == [("lock.yaml", True)]


def test_seed_honours_the_configuration_exclude(tmp_path, monkeypatch):
    from wflint.project.config import Config

    (tmp_path / "good.yaml").write_text(BARE_YAML)
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "wip.yaml").write_text(BARE_YAML.replace("wait_sec: 1", "wait_sec: 0"))
    monkeypatch.chdir(tmp_path)
    failures: list[NotSeeded] = []
    seeded = seed(make_state(), ORG, ["."], failures, Config(exclude=["drafts/"]))
    assert [s.title for s in seeded] == ["Bare"] and failures == []
