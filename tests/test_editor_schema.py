"""The editor schema in the real YAML language server (yaml-language-server, the engine of VS
Code's YAML extension and of most Neovim and Emacs set-ups), driven over stdio as an editor
drives it, with the settings the documentation (docs/editors.md) recommends.

The server is installed from tools/yaml-language-server (``npm ci`` there; .ci/run does it when
Node is present). One server process serves the whole module.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml

from lsp_client import LspClient
from readme_snippets import code_blocks

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "schemas"
EDITOR_SCHEMA = SCHEMAS / "workflow-file.editor.schema.json"
SERVER = ROOT / "tools" / "yaml-language-server" / "node_modules" / "yaml-language-server" / "bin" / "yaml-language-server"
VALID = ROOT / "fixtures" / "valid"

GOOD = """\
title: Price check
workflow_definition:
  parameters:
    - parameter_type: workflow
      key: product_url
      workflow_parameter_type: string
  blocks:
    - block_type: navigation
      label: open_product
      url: "{{ product_url }}"
      navigation_goal: Open the product page
      max_retries: 2
"""


# ------------------------------------------------------------- the schema itself, no editor


def _load(path: Path):
    return json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())


@pytest.mark.parametrize("name", ["workflow-file.schema.json", "workflow-file.editor.schema.json"])
def test_entry_schemas_accept_every_valid_fixture_in_both_forms(name):
    validator = jsonschema.Draft202012Validator(json.loads((SCHEMAS / name).read_text()))
    files = sorted(p for p in VALID.iterdir() if p.suffix in (".yaml", ".json"))
    assert any("json_definition" in _load(p) or "yaml_definition" in _load(p) for p in files)  # update bodies too
    for path in files:
        assert not list(validator.iter_errors(_load(path))), path


def test_only_the_editor_schema_refuses_unknown_keys():
    doc = yaml.safe_load(GOOD.replace("max_retries", "max_retires"))
    strict = jsonschema.Draft202012Validator(json.loads(EDITOR_SCHEMA.read_text()))
    lenient = jsonschema.Draft202012Validator(json.loads((SCHEMAS / "workflow-file.schema.json").read_text()))
    assert "'max_retires' was unexpected" in " ".join(e.message for e in strict.iter_errors(doc))
    assert not list(lenient.iter_errors(doc))
    # an update body is not a request missing its title
    body = {"json_definition": yaml.safe_load(GOOD)}
    assert not list(strict.iter_errors(body))
    body["json_definition"]["titel"] = "x"
    assert list(strict.iter_errors(body))


# ------------------------------------------------------------------- the real language server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from node_tools import require

    require(ROOT / "tools" / "yaml-language-server", SERVER, "yaml-language-server (tools/yaml-language-server)")
    node = shutil.which("node")
    workspace = tmp_path_factory.mktemp("repo")
    (workspace / "workflows").mkdir()
    (workspace / "schemas").mkdir()
    shutil.copy(EDITOR_SCHEMA, workspace / "schemas")
    # the documented VS Code settings, as written (schemas/ copied into the repository, as it says)
    vscode = json.loads(code_blocks("Schemas in your editor", "json")[0])
    yaml_settings = {key.removeprefix("yaml."): value for key, value in vscode.items() if key.startswith("yaml.")}
    assert set(yaml_settings) == {"schemas", "yamlVersion"}
    settings = {"yaml": {**yaml_settings, "validate": True, "completion": True, "hover": True, "schemaStore": {"enable": False}}}
    client = LspClient([node, str(SERVER), "--stdio"], settings=settings, cwd=str(workspace))
    client.request(
        "initialize",
        {
            "processId": None,
            "rootUri": workspace.as_uri(),
            "workspaceFolders": [{"uri": workspace.as_uri(), "name": "repo"}],
            "capabilities": {
                "workspace": {"configuration": True, "didChangeConfiguration": {"dynamicRegistration": True}},
                "textDocument": {"publishDiagnostics": {}, "completion": {"completionItem": {"snippetSupport": False}}},
            },
        },
    )
    client.notify("initialized", {})
    client.notify("workspace/didChangeConfiguration", {"settings": settings})
    client.workspace = workspace
    yield client
    client.close()


def _diagnose(server, name: str, text: str) -> list[dict]:
    uri = (server.workspace / "workflows" / name).as_uri()
    server.open(uri, text)
    return server.wait_for_diagnostics(uri)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines()) if needle in line)


def test_a_misspelt_key_is_marked(server):
    text = GOOD.replace("max_retries", "max_retires")
    diags = _diagnose(server, "typo.yaml", text)
    marks = [d for d in diags if d["range"]["start"]["line"] == _line_of(text, "max_retires")]
    assert marks, diags
    assert "max_retires" in marks[0]["message"] and marks[0]["severity"] == 1


def test_a_bad_enum_value_is_marked(server):
    text = GOOD.replace("workflow_parameter_type: string", "workflow_parameter_type: strng")
    diags = _diagnose(server, "enum.yaml", text)
    marks = [d for d in diags if d["range"]["start"]["line"] == _line_of(text, "strng")]
    assert marks, diags
    assert "string" in marks[0]["message"]  # the message lists the allowed values


def test_yaml_11_reading_is_what_the_editor_checks(server):
    # YAML 1.1 (the service's reading) makes `no` a boolean, which a title cannot be
    text = GOOD.replace("title: Price check", "title: no")
    diags = _diagnose(server, "yaml11.yaml", text)
    assert any(d["range"]["start"]["line"] == 0 for d in diags), diags


@pytest.mark.parametrize(
    "fixture", ["nightly_order_status_sync.yaml", "weekly_timesheet_submission.yaml", "supplier_screening_update_body.yaml"]
)
def test_valid_files_get_no_mark(server, fixture):
    # the last one is an update body: no false "Missing property 'title'"
    assert _diagnose(server, fixture, (VALID / fixture).read_text()) == []


def test_completion_offers_the_block_types(server):
    from wflint import model

    text = GOOD.replace("- block_type: navigation", "- block_type: ")
    uri = (server.workspace / "workflows" / "complete.yaml").as_uri()
    server.open(uri, text)
    line = _line_of(text, "- block_type:")
    result = server.request(
        "textDocument/completion",
        {"textDocument": {"uri": uri}, "position": {"line": line, "character": len(text.splitlines()[line])}},
    )
    items = result["items"] if isinstance(result, dict) else result
    offered = {item["label"] for item in items}
    assert set(model.BLOCK_TYPES) <= offered, sorted(set(model.BLOCK_TYPES) - offered)


def test_the_neovim_snippet_says_what_the_tested_vscode_snippet_says():
    vscode = json.loads(code_blocks("Schemas in your editor", "json")[0])
    (lua,) = code_blocks("Schemas in your editor", "lua")
    assert re.search(r'yamlVersion = "1\.1"', lua)
    (path, globs) = re.search(r'schemas = \{ \["([^"]+)"\] = \{ ([^}]*) \}', lua).groups()
    assert {path: re.findall(r'"([^"]+)"', globs)} == vscode["yaml.schemas"]
    assert (ROOT / path).exists()


def test_completion_offers_the_request_keys_at_the_top(server):
    uri = (server.workspace / "workflows" / "top.yaml").as_uri()
    server.open(uri, "title: Price check\n\n")
    result = server.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 0}})
    offered = {item["label"] for item in (result["items"] if isinstance(result, dict) else result)}
    assert {"workflow_definition", "description", "proxy_location"} <= offered
