"""`wflint mcp` through the MCP Inspector's command line, a client built on the TypeScript SDK
(the one most agents use): it lists the tools, resources and prompt, calls tools, and checks
each tool's result against its output schema, errors included.

The Inspector is a Node project with a lockfile (tools/mcp-inspector, installed by
tools/install-test-tools.sh). Its lockfile carries one entry npm could not write itself: a
Windows-only optional package of vite's that the package index does not serve, without which
`npm ci` refuses the lockfile (it is never installed on other systems)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp")
from node_tools import require  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "tools" / "mcp-inspector"
INSPECTOR = PROJECT / "node_modules" / ".bin" / "mcp-inspector"

BROKEN = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - {block_type: wait, label: a-b, wait_sec: 1}\n"


def inspect(tmp_path: Path, *args: str, status: int = 0) -> dict:
    """The Inspector's answer (its exit status is 5 for a tool's error result)."""
    require(PROJECT, INSPECTOR, "the MCP Inspector")
    done = subprocess.run([str(INSPECTOR), "--cli", sys.executable, "-m", "wflint", "mcp", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert done.returncode == status, done.stderr + done.stdout
    return json.loads(done.stdout)


def test_the_inspector_lists_what_the_server_offers(tmp_path):
    tools = inspect(tmp_path, "--method", "tools/list")["tools"]
    assert {t["name"] for t in tools} == {"check", "fix", "simulate", "explain_rule", "block_schema", "graph"}
    assert all(t["outputSchema"]["type"] == "object" for t in tools)
    resources = inspect(tmp_path, "--method", "resources/list")["resources"]
    assert "wflint://rules" in {r["uri"] for r in resources}
    prompt = inspect(tmp_path, "--method", "prompts/get", "--prompt-name", "author_check_fix_simulate",
                     "--prompt-args", "goal=book a table")
    assert "book a table" in prompt["messages"][0]["content"]["text"]


def test_the_inspector_calls_a_tool_and_reads_a_structured_error(tmp_path):
    (tmp_path / "flow.yaml").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    report = inspect(tmp_path, "--method", "tools/call", "--tool-name", "check", "--tool-arg", "path=flow.yaml")
    finding = report["structuredContent"]["findings"][0]
    assert finding["code"] == "WF106" and finding["json_path"] == "$.workflow_definition.blocks[0].label"
    assert finding["fix"]["changes"][0]["value"] == "a_b"
    # the error's structured content passes the client's check against the output schema
    error = inspect(tmp_path, "--method", "tools/call", "--tool-name", "check", "--tool-arg", "path=blob.bin", status=5)
    assert error["isError"] is True and error["structuredContent"]["error"]["kind"] == "not_text"
