"""End to end: ``python -m wflint.server`` as a subprocess on a free loopback port, driven by
the official Python client (``skyvern`` 1.0.56). Skipped when the client is not installed."""

from __future__ import annotations

import base64
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

skyvern_client = pytest.importorskip("skyvern.client")
from skyvern.client.core.api_error import ApiError  # noqa: E402
from skyvern.client.errors import UnprocessableEntityError  # noqa: E402

SRC = Path(__file__).resolve().parents[2] / "src"
KEY = "e2e-key"
DEFINITION = {
    "title": "E2E invoices",
    "workflow_definition": {
        "parameters": [{"parameter_type": "workflow", "key": "invoice_url", "workflow_parameter_type": "string",
                        "default_value": "https://example.com/inv"}],
        "blocks": [
            {"block_type": "goto_url", "label": "open", "url": "{{ invoice_url }}", "next_block_label": "read"},
            {"block_type": "extraction", "label": "read", "data_extraction_goal": "total", "parameter_keys": ["invoice_url"]},
        ],
    },
}
YAML = """title: E2E from yaml
workflow_definition:
  parameters: []
  blocks:
    - block_type: navigation
      label: go-there
      navigation_goal: open the invoices page
    - block_type: wait
      label: pause
      wait_sec: 2
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "wflint.server", "--port", str(self.port), "--api-key", f"{KEY}=o_e2e", *args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.proc.stdout.read()}")
            try:
                if httpx.get(self.base + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("server did not start")

    def client(self):
        return skyvern_client.Skyvern(base_url=self.base, api_key=KEY)

    def stop(self) -> str:
        self.proc.terminate()
        try:
            out, _ = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate()
        return out


@pytest.fixture(scope="module")
def server():
    s = Server()
    yield s
    s.stop()


def test_create_update_get_list_and_versions(server):
    c = server.client()
    created = c.create_workflow(json_definition=DEFINITION)
    wpid = created.workflow_permanent_id
    assert created.version == 1 and wpid.startswith("wpid_")
    assert [b.label for b in created.workflow_definition.blocks] == ["open", "read"]

    by_json = c.update_workflow(wpid, json_definition={**DEFINITION, "title": "E2E invoices v2"})
    assert (by_json.version, by_json.workflow_permanent_id) == (2, wpid)
    by_yaml = c.update_workflow(wpid, yaml_definition=YAML)
    assert by_yaml.version == 3 and [b.label for b in by_yaml.workflow_definition.blocks] == ["go_there", "pause"]

    assert c.get_workflow(wpid).version == 3
    assert c.get_workflow(wpid, version=1).title == "E2E invoices"
    assert [v.version for v in c.get_workflow_versions(wpid)] == [3, 2, 1]

    c.create_workflow(json_definition={**DEFINITION, "title": "E2E draft", "status": "draft"})
    listed = c.get_workflows(page=1, page_size=10)
    assert [w.title for w in listed][:2] == ["E2E draft", "E2E from yaml"]
    assert [w.title for w in c.get_workflows(search_key="from YAML")] == ["E2E from yaml"]
    assert [w.title for w in c.get_workflows(status=["draft"])] == ["E2E draft"]
    assert len(c.get_workflows(page=2, page_size=1)) == 1
    assert c.get_workflows(only_saved_tasks=True) == []


def test_create_script(server):
    c = server.client()
    summary = c.create_script(files=[{"path": "main.py", "content": base64.b64encode(b"print(1)\n").decode()},
                                     {"path": "lib/util.py", "content": "x = 1\n", "encoding": "utf-8"}])
    assert summary.script_id.startswith("s_") and summary.version == 1 and summary.file_count == 2
    assert summary.file_tree["main.py"].size == 9 and summary.file_tree["lib"].type == "directory"


def test_errors_reach_the_client(server):
    c = server.client()
    with pytest.raises(UnprocessableEntityError):
        c.create_workflow(json_definition={"title": "t", "workflow_definition": {"parameters": [], "blocks": [{"label": "x"}]}})
    with pytest.raises(ApiError) as err:
        c.get_workflow("wpid_000000000000000000")
    assert err.value.status_code == 404
    bad = skyvern_client.Skyvern(base_url=server.base, api_key="wrong")
    with pytest.raises(ApiError) as err:
        bad.get_workflows()
    assert (err.value.status_code, err.value.body) == (403, {"detail": "Could not validate credentials"})


def test_seed_and_restart_with_a_database(tmp_path):
    seeds = tmp_path / "flows"
    seeds.mkdir()
    (seeds / "one.yaml").write_text(YAML)
    (seeds / "two.json").write_text('{"json_definition": {"title": "seeded json", "workflow_definition": {"parameters": [], "blocks": []}}}')
    db = str(tmp_path / "mock.db")
    first = Server("--db", db, "--seed", str(seeds))
    try:
        wpids = {w.title: w.workflow_permanent_id for w in first.client().get_workflows()}
        first.client().update_workflow(wpids["seeded json"], json_definition={"title": "edited", "workflow_definition": {"parameters": [], "blocks": []}})
    finally:
        out = first.stop()
    lines = [line.split("\t") for line in out.splitlines() if line.startswith("wpid_")]
    assert sorted((title, Path(path).name) for _, title, path in lines) == [("E2E from yaml", "one.yaml"), ("seeded json", "two.json")]
    assert sorted(wpids.values()) == sorted(wpid for wpid, _, _ in lines)

    second = Server("--db", db, "--seed", str(seeds))  # same ids; unchanged seeds are left alone
    try:
        titles = {w.workflow_permanent_id: (w.title, w.version) for w in second.client().get_workflows()}
    finally:
        second.stop()
    assert titles[wpids["seeded json"]] == ("edited", 2) and titles[wpids["E2E from yaml"]] == ("E2E from yaml", 1)
