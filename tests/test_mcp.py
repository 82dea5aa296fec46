"""`wflint mcp` end to end: the real server, started as `python -m wflint mcp`, driven over stdio
by the official SDK's own client (``mcp.client.stdio``): the listings, every tool, the loop an
agent runs (check, fix until clean, simulate), and the inputs a tool cannot use, each answered
as a structured error while the session goes on."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

pytest.importorskip("mcp")
import anyio  # noqa: E402
import jsonschema  # noqa: E402
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from wflint.model.releases import NEWEST, RELEASES  # noqa: E402

BROKEN = """\
title: Order lookup
workflow_definition:
  parameters:
    - parameter_type: workflow
      key: order-id
      workflow_parameter_type: string
  blocks:
    - block_type: navigation
      label: open-page
      url: https://example.com/orders
      navigation_goal: "Find order {{ order_id }}"
      max_retires: 2
      parameter_keys: [order-id]
      next_block_label: raed
    - block_type: extraction
      label: read
      data_extraction_goal: "Read the status of order {{ order_id }}"
      parameter_keys: [order_id]
"""

#: a save the service refuses: sent as json_definition, a label used twice is a 422
REFUSED = json.dumps({"title": "t", "workflow_definition": {"parameters": [], "blocks": [
    {"block_type": "wait", "label": "pause", "wait_sec": 1}, {"block_type": "wait", "label": "pause", "wait_sec": 2}]}},
    indent=2) + "\n"

TOOLS = {"check", "fix", "simulate", "explain_rule", "block_schema", "graph"}


def run(scenario: Callable[[ClientSession], Awaitable[None]], cwd: Path) -> None:
    """``scenario`` against a fresh server in ``cwd``, started as an agent's client starts it."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "wflint", "mcp"], cwd=str(cwd),
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})

    async def main() -> None:
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await scenario(session)

    try:
        anyio.run(main)
    except BaseExceptionGroup as group:  # the task groups wrap a failed assertion: show it alone
        while isinstance(group, BaseExceptionGroup) and len(group.exceptions) == 1:
            group = group.exceptions[0]
        raise group from None


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    # the same answer as text, for clients that read only that
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


async def failure(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    assert result.structured_content is not None and set(result.structured_content) == {"error"}
    # the error fits the tool's output schema: clients on the TypeScript SDK check errors too
    schema = next(t.output_schema for t in (await session.list_tools()).tools if t.name == tool)
    jsonschema.validate(result.structured_content, schema)
    return result.structured_content["error"]


def _strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def apply(text: str, fix: dict[str, Any]) -> str:
    """A finding's fix applied as an agent applies it: its edits in the order given."""
    for edit in fix["edits"]:
        text = text[: edit["start_offset"]] + edit["new_text"] + text[edit["end_offset"]:]
    return text


def test_lists_the_tools_with_schemas_the_resources_and_the_prompt(tmp_path):
    async def scenario(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == TOOLS
        for tool in tools.values():
            assert tool.description and tool.output_schema and tool.output_schema["type"] == "object"
            assert tool.input_schema["type"] == "object"
        assert {"text", "path", "target_version", "offset", "limit"} <= set(tools["check"].input_schema["properties"])
        result, error = tools["check"].output_schema["anyOf"]
        assert "findings" in result["properties"] and error["required"] == ["error"]
        assert tools["block_schema"].input_schema["required"] == ["block_type"]

        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        assert "wflint://rules" in uris and "wflint://guide/loop" in uris
        for release in RELEASES:
            assert f"wflint://schemas/{release}/workflow-file.schema.json" in uris
        catalogue = json.loads((await session.read_resource("wflint://rules")).contents[0].text)
        codes = {r["code"]: r for r in catalogue["rules"]}
        assert codes["WF106"]["fix"] == "safe" and codes["WF109"]["fix"] == "unsafe" and codes["WF201"]["fix"] == "none"
        old = json.loads((await session.read_resource("wflint://schemas/1.0.48/workflow-definition.schema.json")).contents[0].text)
        new = json.loads((await session.read_resource(f"wflint://schemas/{NEWEST}/workflow-definition.schema.json")).contents[0].text)
        assert old["$id"] != new["$id"] and old["$defs"] != new["$defs"]  # each release its own model

        prompts = (await session.list_prompts()).prompts
        assert [p.name for p in prompts] == ["author_check_fix_simulate"]
        prompt = await session.get_prompt("author_check_fix_simulate", {"goal": "look up an order's status"})
        words = prompt.messages[0].content.text
        assert "look up an order's status" in words
        assert all(step in words for step in ("block_schema", "`check`", "`fix`", "`simulate`", "json_path"))

    run(scenario, tmp_path)


def test_check_gives_each_finding_its_json_path_service_answer_and_fix(tmp_path):
    (tmp_path / "broken.yaml").write_text(BROKEN, encoding="utf-8")

    async def scenario(session: ClientSession) -> None:
        report = await call(session, "check", path="broken.yaml")
        assert report["release"] == NEWEST and not report["clean"] and report["fails"]
        by_code = {}
        for f in report["findings"]:
            by_code.setdefault(f["code"], []).append(f)
        label = next(f for f in by_code["WF106"] if "open-page" in f["message"])
        assert label["json_path"] == "$.workflow_definition.blocks[0].label"
        assert label["json_pointer"] == "/workflow_definition/blocks/0/label"
        assert label["fix"]["safety"] == "safe"
        assert label["fix"]["changes"] == [{"op": "replace", "json_path": "$.workflow_definition.blocks[0].label",
                                            "json_pointer": "/workflow_definition/blocks/0/label",
                                            "value": "open_page", "value_omitted": False, "new_key": None}]
        misspelt = by_code["WF109"][0]
        assert misspelt["at_key"] and misspelt["json_path"] == "$.workflow_definition.blocks[0].max_retires"
        assert misspelt["fix"]["safety"] == "unsafe"
        assert misspelt["fix"]["changes"][0]["op"] == "rename_key"
        assert misspelt["fix"]["changes"][0]["new_key"] == "max_retries"
        # the edits are exact: applied, they give the text whose data the changes describe
        fixed = apply(BROKEN, misspelt["fix"])
        assert "max_retries: 2" in fixed and fixed.count("\n") == BROKEN.count("\n")

        # the service's answer rides on the findings it refuses, and on the whole file
        refused = await call(session, "check", text=REFUSED)
        assert refused["service"]["accepts"] is False and refused["service"]["status"] == 422
        assert refused["service"]["code"] == "WF201" and "pause" in refused["service"]["reason"]
        duplicate = next(f for f in refused["findings"] if f["code"] == "WF201")
        assert duplicate["service"]["status"] == 422 and duplicate["json_path"] == "$.workflow_definition.blocks[1].label"

        # bounded: a page of findings, and the offset of the next
        first = await call(session, "check", path="broken.yaml", limit=2)
        assert len(first["findings"]) == 2 and first["next_offset"] == 2 and first["total"] == report["total"]
        rest = await call(session, "check", path="broken.yaml", offset=2, limit=200)
        assert [f["message"] for f in first["findings"] + rest["findings"]] == [f["message"] for f in report["findings"]]
        assert rest["next_offset"] is None

        # the target release decides: engine_pinned came with 1.0.56
        pinned = ("title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - block_type: navigation\n"
                  "      label: go\n      url: https://example.com\n      navigation_goal: look\n"
                  "      engine_pinned: true\n")
        assert "WF104" not in (await call(session, "check", text=pinned))["by_code"]
        older = await call(session, "check", text=pinned, target_version="1.0.55")
        assert older["release"] == "1.0.55" and older["by_code"] == {"WF104": 1}
        assert older["findings"][0]["json_path"] == "$.workflow_definition.blocks[0].engine_pinned"

    run(scenario, tmp_path)


def test_an_agent_fixes_a_broken_workflow_until_clean_then_simulates_it(tmp_path):
    async def scenario(session: ClientSession) -> None:
        text, rounds = BROKEN, 0
        while True:
            report = await call(session, "check", text=text, name="orders.yaml")
            if report["clean"]:
                break
            rounds += 1
            assert rounds <= 5, report["findings"]
            fixable = [f for f in report["findings"] if f["fix"]]
            assert fixable, f"a finding with no fix: {report['findings']}"
            text = apply(text, fixable[0]["fix"])  # one fix, then check again: the places move
        assert rounds >= 3 and "open_page" in text and "max_retries" in text and "next_block_label: read" in text

        # the fix tool does the same in one call
        fixed = await call(session, "fix", text=BROKEN, name="orders.yaml", unsafe=True)
        assert fixed["changed"] and fixed["remaining"]["clean"] and fixed["text"] == text
        assert fixed["diff"].startswith("--- a/orders.yaml") and "+      label: open_page" in fixed["diff"]
        safe = await call(session, "fix", text=BROKEN, name="orders.yaml")
        assert not safe["remaining"]["clean"] and set(safe["remaining"]["by_code"]) == {"WF109", "WF202"}

        run_ = await call(session, "simulate", text=text, name="orders.yaml",
                          cases=[{"name": "found", "parameters": {"order_id": "42"},
                                  "tasks": {"read": {"status": "completed", "extracted_information": {"status": "shipped"}}}},
                                 {"name": "page fails", "parameters": {"order_id": "42"},
                                  "tasks": {"open_page": {"status": "failed", "failure_reason": "no such order"}}}])
        found, fails = run_["cases"]
        assert found["status"] == "completed" and found["blocks_run"] == ["open_page", "read"]
        assert found["outputs"]["read_output"]["extracted_information"] == {"status": "shipped"}
        assert fails["status"] == "failed" and fails["failed_block"] == "open_page"
        assert "no such order" in fails["summary"] and fails["summary"] in run_["summary"]

        picture = await call(session, "graph", text=text, name="orders.yaml")
        assert picture["mermaid"].lstrip("-\n").startswith("title:") and "open_page" in picture["mermaid"]
        assert "flowchart" in picture["mermaid"] and " --> " in picture["mermaid"]

    run(scenario, tmp_path)


def test_explain_rule_and_block_schema(tmp_path):
    async def scenario(session: ClientSession) -> None:
        rule = await call(session, "explain_rule", rule="misspelt-field")
        assert rule["code"] == "WF109" and rule["fix"] == "unsafe" and "near miss" in rule["documentation"]
        assert rule["url"].endswith("#wf109-misspelt-field")

        nav = await call(session, "block_schema", block_type="navigation")
        fields = {f["name"]: f for f in nav["fields"]}
        assert nav["release"] == NEWEST and fields["block_type"]["json_schema"] == {"const": "navigation"}
        assert fields["label"]["required"] and fields["label"]["common"]
        assert fields["navigation_goal"]["templated"] == "text" and fields["navigation_goal"]["description"]
        assert fields["max_retries"]["type"].startswith("integer")
        # per release, from the model: engine_pinned came with 1.0.56, and engine was not nullable before 1.0.55
        assert not fields["engine"]["required"] and fields["engine"]["nullable"] and "engine_pinned" in fields
        old = await call(session, "block_schema", block_type="navigation", target_version="1.0.48")
        old_fields = {f["name"]: f for f in old["fields"]}
        assert old["release"] == "1.0.48" and "engine_pinned" not in old_fields
        assert old_fields["engine"]["default"] == "skyvern-1.0" and not old_fields["engine"]["nullable"]

    run(scenario, tmp_path)


def test_inputs_a_tool_cannot_use_are_structured_errors_and_the_session_goes_on(tmp_path):
    (tmp_path / "binary.bin").write_bytes(bytes(range(256)) * 8)
    (tmp_path / "huge.yaml").write_text("title: t\n# " + "x" * (5 * 1024 * 1024) + "\n", encoding="utf-8")
    (tmp_path / "compose.yaml").write_text("services:\n  web: {image: nginx}\n", encoding="utf-8")
    (tmp_path / "ok.json").write_text(REFUSED, encoding="utf-8")

    async def scenario(session: ClientSession) -> None:
        for tool in ("check", "fix", "simulate", "graph"):
            assert (await failure(session, tool, path="binary.bin"))["kind"] == "not_text"
            assert (await failure(session, tool, path="huge.yaml"))["kind"] == "too_large"
            error = await failure(session, tool, path="compose.yaml")
            assert error["kind"] == "not_a_workflow" and "no workflow key" in error["message"] and error["hint"]
            assert (await failure(session, tool, path="missing.yaml"))["kind"] == "unreadable"
        assert (await failure(session, "check", text="x" * (5 * 1024 * 1024)))["kind"] == "too_large"
        assert (await failure(session, "check", text="a", path="ok.json"))["kind"] == "bad_argument"
        assert (await failure(session, "check"))["kind"] == "bad_argument"
        assert (await failure(session, "check", path="ok.json", target_version="0.0.1"))["kind"] == "bad_argument"
        assert (await failure(session, "block_schema", block_type="navgation"))["message"].endswith(
            "did you mean navigation, action, validation?")
        assert (await failure(session, "explain_rule", rule="misspelt-feild"))["message"].endswith(
            "did you mean misspelt-field, missing-field?")
        assert (await failure(session, "simulate", path="ok.json", cases=[{"blocks": [1]}]))["kind"] == "bad_argument"
        assert "at most 50" in (await failure(session, "simulate", path="ok.json", cases=[{}] * 51))["message"]
        bad_type = await session.call_tool("check", {"text": 5})
        assert bad_type.is_error  # the SDK's own argument validation, answered in the session
        # a text that does not parse is a finding, not an error
        broken = await call(session, "check", text="title: t\nworkflow_definition: [\n")
        assert broken["findings"][0]["code"] == "WF001"
        assert (await failure(session, "fix", text="title: t\nworkflow_definition: [\n"))["kind"] == "unparseable"
        # a JSON \ud800 reads as a lone surrogate, which cannot be sent as UTF-8: it is sent escaped
        # (unescaped, the answer was never written and the call hung)
        odd = '{"title": "t", "workflow_definition": {"parameters": [], "blocks": [' \
              '{"block_type": "wait", "label": "x\\ud800", "wait_sec": 1}]}}'
        for tool in ("check", "fix", "graph", "simulate"):
            with anyio.fail_after(120):
                answer = await call(session, tool, text=odd)
            assert any("x\\ud800" in text for text in _strings(answer)), tool
        # and after all that the same session still answers
        assert (await call(session, "check", path="ok.json"))["service"]["status"] == 422

    run(scenario, tmp_path)


def test_simulate_says_whether_the_service_refuses_the_save_or_the_run(tmp_path):
    async def scenario(session: ClientSession) -> None:
        save = (await call(session, "simulate", text=REFUSED))["cases"][0]
        assert save["status"] == "refused" and save["refused_status"] == 422
        assert save["summary"].startswith("case defaults: the service refuses to save the workflow (HTTP 422)")
        fixed = (await call(session, "fix", text=BROKEN, name="orders.yaml", unsafe=True))["text"]
        run_ = (await call(session, "simulate", text=fixed, name="orders.yaml"))["cases"][0]  # order_id has no default
        assert run_["refused_status"] == 400 and "to start the run" in run_["summary"]
        assert "Missing value for parameter order_id" in run_["failure_reason"]
        # a long trace is paged
        paged = (await call(session, "simulate", text=fixed, name="orders.yaml", trace_limit=1,
                            cases=[{"parameters": {"order_id": "1"}}]))["cases"][0]
        assert paged["trace_total"] == 2 and len(paged["trace"]) == 1 and paged["trace_next_offset"] == 1
        assert paged["trace"][0]["label"] == "open_page" and paged["name"] == "case 1"

    run(scenario, tmp_path)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_streamable_http_serves_the_same_tools(tmp_path):
    import subprocess
    import time

    from mcp.client.streamable_http import streamable_http_client

    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "wflint", "mcp", "--transport", "streamable-http", "--port",
                               str(port)], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        async def main() -> None:
            async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    assert {t.name for t in (await session.list_tools()).tools} == TOOLS
                    report = await call(session, "check", text=REFUSED)
                    assert report["service"]["status"] == 422

        for _ in range(200):  # until it listens (the interpreter and the SDK start first)
            try:
                import socket

                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, "the server ended before it listened"
                time.sleep(0.1)
        anyio.run(main)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_without_the_sdk_wflint_mcp_says_which_extra_to_install():
    import subprocess

    code = ("import importlib.util, sys\n"
            "real = importlib.util.find_spec\n"
            "importlib.util.find_spec = lambda name, *a: None if name == 'mcp' else real(name, *a)\n"
            "from wflint.cli import main\n"
            "main(['mcp'])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "mcp extra" in done.stderr and "Traceback" not in done.stderr
