"""`wflint lsp` links rule codes where the workspace configuration's `docs-url` says, when the
editor gives no `rulesDocsUrl` (a server of its own: the main LSP tests start theirs with one)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as lsp  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")
DOCS_URL = "https://team.example/wflint/rules/"
BROKEN = "title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - block_type: navigation\n      label: open\n      url: https://example.com\n"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    (root / ".wflint.toml").write_text(f'docs-url = "{DOCS_URL}"\n')
    return root


def _make_client() -> LanguageClient:
    """pytest-lsp's client, answering the server's request to watch the configuration files."""
    from pygls.protocol import default_converter
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, lsp.CLIENT_REGISTER_CAPABILITY: lambda *_: None})
    return client


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "wflint", "lsp"], client_factory=_make_client))
async def client(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"), root_uri=workspace.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=workspace.as_uri(), name="ws")]))
    yield
    await lsp_client.shutdown_session()


async def test_rule_links_follow_the_workspace_docs_url(client: LanguageClient, workspace: Path):
    path = workspace / "flow.yaml"
    path.write_text(BROKEN)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=lsp.TextDocumentItem(
        uri=path.as_uri(), language_id="yaml", version=1, text=BROKEN)))
    deadline = time.monotonic() + 15
    while not client.diagnostics.get(path.as_uri()) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    diags = client.diagnostics.get(path.as_uri())
    assert diags, "no diagnostics published"
    for d in diags:
        assert d.code_description.href == f"{DOCS_URL}#{d.code.lower()}-{d.data['name']}"
