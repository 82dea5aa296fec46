"""The language server on ``*.test.yaml`` files: ``wflint test``'s refusals as diagnostics at
their places, completion of the schema's keys and of the workflow's labels and parameters, and
hovers from the test-file schema (``test-file.schema.json``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from wflint.lsp import test_files
from wflint.lsp.documents import Document
from wflint.model.test_file import TEST_FILE
from wflint.simulate.suite import TEST_SUFFIXES

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "fixtures" / "simulate" / "tutorial"


def _doc(tmp_path: Path, text: str) -> Document:
    shutil.copy(TUTORIAL / "lead_sync.yaml", tmp_path / "lead_sync.yaml")
    path = tmp_path / "lead_sync.test.yaml"
    return Document(path.as_uri(), str(path), text, 1)


def test_the_servers_suffixes_are_the_test_runners():
    assert test_files.TEST_SUFFIXES == TEST_SUFFIXES


def test_what_wflint_test_refuses_is_published_where_it_is(tmp_path):
    doc = _doc(tmp_path, "cases:\n  - name: x\n    task: {read_leads: {}}\n    tasks: {read_lead: {}}\n")
    found = {(d.range.start.line, d.range.start.character): d.message for d in test_files.diagnostics(doc)}
    assert found[(2, 4)] == "cases[0]: unknown key 'task' (did you mean 'tasks'?)"
    assert found[(3, 12)] == "cases[0].tasks: 'read_lead' names no block of the workflow (did you mean 'read_leads'?)"
    assert test_files.diagnostics(_doc(tmp_path, (TUTORIAL / "lead_sync.test.yaml").read_text())) == []


def _complete(doc: Document, marker: str = "|") -> list[str]:
    offset = doc.text.index(marker)
    doc = Document(doc.uri, doc.path, doc.text.replace(marker, "", 1), 1)
    return [item.label for item in test_files.complete(doc, offset).items]


def test_completion_offers_the_keys_a_case_lacks_and_the_workflows_names(tmp_path):
    case_keys = _complete(_doc(tmp_path, "cases:\n  - name: x\n    ta|\n"))
    assert "tasks" in case_keys and "http" in case_keys and "secrets" in case_keys and "name" not in case_keys
    labels = _complete(_doc(tmp_path, "cases:\n  - name: x\n    tasks:\n      |\n"))
    assert labels == ["sign_in", "read_leads"]  # the browser-agent blocks: what tasks: stands in for
    assert "note_cold" in _complete(_doc(tmp_path, "cases:\n  - name: x\n    expect:\n      blocks:\n        |\n"))
    secrets = _complete(_doc(tmp_path, "cases:\n  - name: x\n    secrets:\n      |\n"))
    assert secrets == ["portal_login", "crm_token"]
    expect = _complete(_doc(tmp_path, "cases:\n  - name: x\n    expect:\n      |\n"))
    assert "requests" in expect and "path" in expect


def test_hover_explains_a_key_from_the_schema_and_a_label_from_the_workflow(tmp_path):
    text = "cases:\n  - name: x\n    tasks: {read_leads: {}}\n    expect: {status: completed}\n"
    doc = _doc(tmp_path, text)
    hover = test_files.hover(doc, text.index("tasks") + 1)
    assert TEST_FILE["properties"]["cases"]["items"]["properties"]["tasks"]["description"] in hover.contents.value
    label = test_files.hover(doc, text.index("read_leads") + 2)
    assert label.contents.value == "`read_leads`: a extraction block of the workflow"
    assert "The run's status" in test_files.hover(doc, text.index("status") + 1).contents.value


def test_wflint_lsp_publishes_completes_and_hovers_a_test_file_over_stdio(tmp_path):
    import sys

    from lsp_client import LspClient

    shutil.copy(TUTORIAL / "lead_sync.yaml", tmp_path / "lead_sync.yaml")
    client = LspClient([sys.executable, "-m", "wflint", "lsp"], settings={}, cwd=str(tmp_path))
    try:
        client.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        client.notify("initialized", {})
        uri = (tmp_path / "lead_sync.test.yaml").as_uri()
        text = "cases:\n  - name: x\n    tsks: {read_leads: {}}\n    \n"
        client.open(uri, text)
        assert client.wait_until(lambda: any("did you mean 'tasks'" in d["message"] for d in client.diagnostics.get(uri, [])))
        [published] = client.diagnostics[uri]
        assert published["range"]["start"] == {"line": 2, "character": 4} and published["source"] == "wflint test"
        items = client.request("textDocument/completion", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 4}})
        assert "expect" in [i["label"] for i in items["items"]]
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 5}})
        assert "The case's name" in hover["contents"]["value"]
    finally:
        client.close()
