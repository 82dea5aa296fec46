"""The MCP wiring: tools, resources and a prompt on the SDK's ``MCPServer``. Each tool's work
is a function of ``tools`` or ``knowledge``; here its inputs are typed (the SDK publishes them
as JSON Schemas), its result is checked against its output model (``shapes``), and any failure
becomes a structured error result: the server's process never dies of a tool call."""

from __future__ import annotations

import inspect
import json
import logging
import threading
from typing import Annotated, Any, Callable

from mcp.server import MCPServer
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from .. import __version__
from ..model.releases import RELEASES
from ..report.safe_text import escape_surrogates
from . import guide, knowledge, shapes, tools
from .inputs import BadInput

logger = logging.getLogger("wflint.mcp")

# the inputs most tools share
# plain ``str`` (empty when not given), not ``str | None``: the SDK reads a string argument of any
# other annotation as JSON when it can, and a workflow given as JSON text would arrive as a dict
Text = Annotated[str, Field(description="the workflow file's content (YAML or JSON); give this or path")]
PathArg = Annotated[str, Field(description="a workflow file to read (relative to the server's working "
                                           "directory); give this or text")]
Release = Annotated[str | None, Field(description=f"the service release to judge by, one of {', '.join(RELEASES)} "
                                                  "[default: the project's target-version, else the newest]")]
Name = Annotated[str | None, Field(description="a file name for text (its suffix, .yaml or .json, says how the "
                                               "service receives it) [default: workflow.json for text starting "
                                               "with '{', else workflow.yaml]")]

#: the SDK runs each call of a plain function on a worker thread, so a client's parallel calls
#: would run the library side by side; it is not written for that (the simulator's engine
#: least of all), and the interpreter lock would gain nothing from it
_ONE_AT_A_TIME = threading.Lock()

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


def answer(work: Callable[[], dict[str, Any]], model: type[BaseModel]) -> CallToolResult:
    """The tool's result, or a structured error: ``BadInput`` for input it cannot use, and
    anything else (a wflint bug) as ``internal``."""
    try:
        with _ONE_AT_A_TIME:
            data = encodable(model.model_validate(work()).model_dump(mode="json"))
    except BadInput as exc:
        return failure(exc.kind, exc.message, exc.hint)
    except Exception as exc:  # noqa: BLE001 - the last line of defence: the session goes on
        logger.exception("wflint tool failed")
        return failure("internal", f"wflint failed: {type(exc).__name__}: {exc}",
                       "a wflint bug: please report it with the input that caused it")
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(data, ensure_ascii=False))],
                          structured_content=data)


def encodable(value: Any) -> Any:
    """``value`` with every lone surrogate written as its escape (``\\ud800``): a JSON ``\\ud800``
    in a workflow reads as one, and the SDK cannot send it as UTF-8 (the call would never be
    answered)."""
    if isinstance(value, str):
        return escape_surrogates(value)
    if isinstance(value, dict):
        return {encodable(k): encodable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [encodable(v) for v in value]
    return value


def failure(kind: str, message: str, hint: str | None = None) -> CallToolResult:
    data = encodable(shapes.ToolFailure(kind=kind, message=message[:4000], hint=hint).model_dump(mode="json"))
    text = f"error ({kind}): {data['message']}" + (f"\nhint: {data['hint']}" if hint else "")
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content={"error": data},
                          is_error=True)


def build() -> MCPServer:
    server: MCPServer = MCPServer("wflint", title="wflint: Skyvern workflow checks", version=__version__,
                                  instructions=guide.INSTRUCTIONS, log_level="WARNING")

    @_tool(server, annotations=READ_ONLY)
    def check(text: Text = "", path: PathArg = "", target_version: Release = None, name: Name = None,
              offset: Annotated[int, Field(description="the first finding to return (paging)", ge=0)] = 0,
              limit: Annotated[int | None, Field(description=f"findings per page [default {tools.DEFAULT_PAGE}, "
                                                             f"at most {tools.MOST_PAGE}]", ge=1)] = None,
              ) -> Annotated[CallToolResult, shapes.CheckResult]:
        """Check a workflow as the service of a release judges it when it is saved, and as wflint's
        rules read it: every finding with its code, severity, position, JSON path, the service's
        answer (HTTP status) and, where wflint can fix it, the fix as text edits and data changes."""
        return answer(lambda: tools.check(text, path, target_version, name, offset, limit), shapes.CheckResult)

    @_tool(server, annotations=READ_ONLY)
    def fix(text: Text = "", path: PathArg = "",
            unsafe: Annotated[bool, Field(description="also rename misspelt keys, labels, parameter keys and "
                                                      "template variables to their one near match")] = False,
            target_version: Release = None, name: Name = None,
            text_offset: Annotated[int, Field(description="where the returned text starts (paging long texts)",
                                              ge=0)] = 0,
            ) -> Annotated[CallToolResult, shapes.FixResult]:
        """Apply wflint's fixes and return the fixed text (nothing is written), the diff, what was
        changed, and what check says of the result."""
        return answer(lambda: tools.fix(text, path, unsafe, target_version, name, text_offset), shapes.FixResult)

    @_tool(server, annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                             open_world_hint=True))
    def simulate(text: Text = "", path: PathArg = "",
                 cases: Annotated[list[dict[str, Any]] | None, Field(
                     description="runs to simulate, each {name, parameters: {key: value}, tasks: {label: "
                                 "{status, extracted_information, failure_reason}}, llm: {label: answer}, "
                                 "prompt_branches: {label: [bool]}, blocks: {label: {output | fail | status}}}: "
                                 "stubs for what the browser, the LLM or any block would give (read "
                                 "wflint://guide/cases) [default: one case with the parameters' defaults]")] = None,
                 network: Annotated[bool, Field(description="let http_request blocks (and code) reach the "
                                                            "network; off, they fail clearly")] = False,
                 target_version: Release = None, name: Name = None,
                 trace_offset: Annotated[int, Field(description="the first trace row per case (paging)", ge=0)] = 0,
                 trace_limit: Annotated[int | None, Field(description=f"trace rows per case [default "
                                                                      f"{tools.TRACE_PAGE}]", ge=1)] = None,
                 ) -> Annotated[CallToolResult, shapes.SimulateResult]:
        """Run a workflow offline as the service's engine would, with cases stubbing the browser and
        the LLM: per case the status, the blocks run, where it failed and why, the outputs, the
        trace and a short summary."""
        return answer(lambda: tools.simulate(text, path, cases, network, target_version, name, trace_offset,
                                             trace_limit), shapes.SimulateResult)

    @_tool(server, annotations=READ_ONLY)
    def explain_rule(rule: Annotated[str, Field(description="a rule's code (WF104) or name (unknown-field)")],
                     ) -> Annotated[CallToolResult, shapes.RuleDoc]:
        """A rule's documentation: what it finds, why it matters, how to fix it."""
        return answer(lambda: knowledge.explain_rule(rule), shapes.RuleDoc)

    @_tool(server, annotations=READ_ONLY)
    def block_schema(block_type: Annotated[str, Field(description="a block type: task, navigation, extraction, "
                                                                  "for_loop, code, http_request ...")],
                     target_version: Release = None) -> Annotated[CallToolResult, shapes.BlockSchema]:
        """One block type's fields at a release: type, required or not, default, whether it is a
        template, and what each does (from wflint's model of the service's request)."""
        return answer(lambda: knowledge.block_schema(block_type, target_version), shapes.BlockSchema)

    @_tool(server, annotations=READ_ONLY)
    def graph(text: Text = "", path: PathArg = "",
              parameters: Annotated[bool, Field(description="also draw the parameters and what reads them")] = False,
              target_version: Release = None, name: Name = None) -> Annotated[CallToolResult, shapes.GraphResult]:
        """The routing of a workflow as a Mermaid flowchart, with its problems marked on it."""
        return answer(lambda: tools.graph(text, path, parameters, target_version, name), shapes.GraphResult)

    _resources(server)

    @server.prompt(name="author_check_fix_simulate", title="Write a workflow with wflint")
    def author_check_fix_simulate(goal: str | None = None) -> str:
        """How to write a Skyvern workflow with wflint: author, check, fix, repeat until clean,
        then simulate."""
        return guide.loop_prompt(goal)

    return server


def _tool(server: MCPServer, **options: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``server.tool`` with the function's docstring as one line of description (the SDK
    would send it with its source indentation)."""
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        return server.tool(description=" ".join(inspect.cleandoc(fn.__doc__ or "").split()), **options)(fn)

    return register


def _resources(server: MCPServer) -> None:
    server.resource("wflint://rules", name="rules", title="wflint's rules", mime_type="application/json",
                    description="Every rule: code, name, default severity, what it finds, whether fix fixes it")(
        knowledge.rule_catalogue)
    for version in RELEASES:
        for file_name in knowledge.SCHEMA_FILES:
            def read(version: str = version, file_name: str = file_name) -> str:
                return knowledge.schema_document(version, file_name)

            server.resource(f"wflint://schemas/{version}/{file_name}", name=f"{version}/{file_name}",
                            mime_type="application/schema+json",
                            description=f"The JSON Schema of {file_name.split('.')[0].replace('-', ' ')} at "
                                        f"service release {version}")(_no_arguments(read))
    server.resource("wflint://guide/loop", name="loop", title="The author-check-fix-simulate loop",
                    mime_type="text/markdown", description="How to write a workflow with wflint's tools")(
        lambda: guide.loop_prompt())
    server.resource("wflint://guide/cases", name="cases", title="Simulate cases: the stubs",
                    mime_type="text/markdown", description="What a simulate case may stub, with examples")(
        lambda: guide.CASES)


def _no_arguments(fn: Callable[..., str]) -> Callable[[], str]:
    """A resource function must take no parameters: the loop's values are bound here."""
    def read() -> str:
        return fn()

    read.__doc__ = fn.__doc__
    return read
