"""`wflint lsp` end to end: the real server, started as `python -m wflint lsp`, driven over stdio
by pytest-lsp through every feature, on the repository's fixtures.

One server serves the whole module (starting one costs about a second); each test opens its
own documents under a temporary workspace."""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")
from lsprotocol import types as lsp  # noqa: E402
from pygls.protocol import default_converter  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from wflint.api import check_text  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
pytestmark = pytest.mark.asyncio(loop_scope="module")

DOCS_URL = "https://docs.example.org/wflint/rules.html"
#: published diagnostics per uri: every (version, diagnostics) in arrival order
PUBLISHED: dict[str, list[tuple[int | None, list[lsp.Diagnostic]]]] = {}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    for sub in ("valid", "invalid"):
        shutil.copytree(FIXTURES / sub, root / sub)
    return root


def _published(client: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
    PUBLISHED.setdefault(params.uri, []).append((params.version, params.diagnostics))


REGISTERED: list[lsp.Registration] = []


def _registered(client: LanguageClient, params: lsp.RegistrationParams) -> None:
    REGISTERED.extend(params.registrations)


def _make_client() -> LanguageClient:
    """pytest-lsp's test client, keeping every publication with its version (its own keeps
    the last diagnostics per document only)."""
    from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

    client = LanguageClient(converter_factory=default_converter)
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _published,
                                   lsp.CLIENT_REGISTER_CAPABILITY: _registered})
    return client


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(
    server_command=[sys.executable, "-m", "wflint", "lsp"], client_factory=_make_client))
async def client(lsp_client: LanguageClient, workspace: Path):
    await lsp_client.initialize_session(lsp.InitializeParams(
        capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
        root_uri=workspace.as_uri(),
        workspace_folders=[lsp.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
        initialization_options={"rulesDocsUrl": DOCS_URL},
    ))
    yield
    await lsp_client.shutdown_session()


# =========================================================================== helpers


class Doc:
    """A document the test client holds, with its version."""

    def __init__(self, client: LanguageClient, path: Path, text: str | None = None, language: str | None = None):
        self.client = client
        self.path = path
        self.uri = path.as_uri()
        self.text = path.read_text(encoding="utf-8") if text is None else text
        self.version = 1
        PUBLISHED.pop(self.uri, None)  # a document opened again starts over at version 1
        language = language or ("json" if path.suffix == ".json" else "yaml")
        client.text_document_did_open(lsp.DidOpenTextDocumentParams(
            text_document=lsp.TextDocumentItem(uri=self.uri, language_id=language, version=1, text=self.text)))

    def change(self, text: str) -> None:
        self.version += 1
        self.text = text
        self.client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))

    def apply(self, edit: lsp.WorkspaceEdit) -> None:
        self.change(apply_edits(self.text, edit.changes[self.uri]))

    async def diagnostics(self, timeout: float = 15) -> list[lsp.Diagnostic]:
        """The diagnostics published for the current version."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for version, diags in reversed(PUBLISHED.get(self.uri, [])):
                if version == self.version:
                    return list(diags)
            await asyncio.sleep(0.01)
        raise AssertionError(f"no diagnostics for {self.path.name} version {self.version}")

    def position(self, needle: str, delta: int = 0, nth: int = 0) -> lsp.Position:
        at = -1
        for _ in range(nth + 1):
            at = self.text.index(needle, at + 1)
        at += delta
        line = self.text.count("\n", 0, at)
        return lsp.Position(line=line, character=at - (self.text.rfind("\n", 0, at) + 1))

    def ident(self) -> lsp.TextDocumentIdentifier:
        return lsp.TextDocumentIdentifier(uri=self.uri)

    def close(self) -> None:
        self.client.text_document_did_close(lsp.DidCloseTextDocumentParams(text_document=self.ident()))


def apply_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    lines = text.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)

    def offset(p: lsp.Position) -> int:
        return starts[p.line] + p.character  # the fixtures are ASCII: UTF-16 units are characters

    for e in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


def codes(diags) -> list[str]:
    return sorted(d.code for d in diags)


def cli_view(text: str, path: Path) -> list[tuple[str, int, int, int, int]]:
    """What `wflint check` reports, as (code, start line, column, end line, column), 0-based."""
    return sorted((d.code, d.line - 1, d.column - 1, d.end_line - 1, d.end_column - 1) for d in check_text(text, str(path)))


def lsp_view(diags) -> list[tuple[str, int, int, int, int]]:
    return sorted((d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character) for d in diags)


# =========================================================================== diagnostics


async def test_diagnostics_are_those_of_wflint_check_on_every_fixture(client: LanguageClient, workspace: Path):
    files = sorted(p for sub in ("valid", "invalid") for p in (workspace / sub).iterdir() if p.suffix in (".yaml", ".json"))
    docs = [Doc(client, p) for p in files]
    for doc in docs:
        got = await doc.diagnostics()
        assert lsp_view(got) == cli_view(doc.text, doc.path), doc.path.name
        if doc.path.parent.name == "valid":
            assert got == [], doc.path.name
        else:
            assert got, doc.path.name
        for d in got:
            assert d.source == "wflint" and d.message
            assert d.code_description.href == f"{DOCS_URL}#{d.code.lower()}-{d.data['name']}"
        doc.close()


async def test_an_edit_introduces_then_removes_an_error(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "valid" / "freight_rate_quotes_v2.yaml")
    assert await doc.diagnostics() == []
    original = doc.text
    target = "next_block_label: "
    at = original.index(target) + len(target)
    doc.change(original[:at] + "no_such_block_" + original[at:])
    broken = await doc.diagnostics()
    assert codes(broken) == ["WF202"]
    assert "no_such_block_" in broken[0].message
    doc.change(original)
    assert await doc.diagnostics() == []
    doc.close()


async def test_a_burst_of_incremental_changes_ends_in_the_diagnostics_of_its_last_version(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "valid" / "freight_rate_quotes_v2.yaml")
    assert await doc.diagnostics() == []
    start = doc.position("next_block_label: ", len("next_block_label: "))
    seen = len(PUBLISHED[doc.uri])
    first_change = doc.version + 1
    for i, ch in enumerate("zzz_"):  # typed one character at a time, as an editor sends it
        at = lsp.Position(line=start.line, character=start.character + i)
        doc.version += 1
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=doc.uri, version=doc.version),
            content_changes=[lsp.TextDocumentContentChangePartial(range=lsp.Range(start=at, end=at), text=ch)]))
    diags = await doc.diagnostics()
    assert codes(diags) == ["WF202"] and "'zzz_" in diags[0].message
    published = [v for v, _ in PUBLISHED[doc.uri][seen:] if v is not None]  # (None: a close)
    # the burst's first change may be checked at once (it came after a pause); the rest wait
    # for the burst to end, and only the last is checked
    assert published[-1] == doc.version and set(published) <= {first_change, doc.version}
    doc.close()


async def test_related_information_points_at_the_first_duplicate_and_the_cycle(client: LanguageClient, workspace: Path):
    dup = Doc(client, workspace / "invalid" / "duplicate_label_in_loop_body.json")
    (d,) = await dup.diagnostics()
    (related,) = d.related_information
    assert related.location.uri == dup.uri and related.location.range.start.line < d.range.start.line
    cycle = Doc(client, workspace / "invalid" / "v2_retry_loop_cycle.json")
    (c,) = await cycle.diagnostics()
    assert c.code == "WF302" and len(c.related_information) >= 2
    assert all("→" in r.message for r in c.related_information)
    dup.close()
    cycle.close()


async def test_files_that_are_not_workflows_get_nothing(client: LanguageClient, workspace: Path):
    path = workspace / "compose.yaml"
    doc = Doc(client, path, "services:\n  web:\n    image: nginx\n    ports: [80\n")  # broken, but not a workflow
    assert await doc.diagnostics() == []
    doc.close()


async def test_configuration_is_read_and_reloaded_when_it_changes(client: LanguageClient, workspace: Path):
    folder = workspace / "configured"
    folder.mkdir()
    source = workspace / "invalid" / "for_loop_without_source.json"
    doc = Doc(client, folder / "flow.json", source.read_text())
    first = await doc.diagnostics()
    assert codes(first) == ["WF109", "WF211", "WF213"]
    assert [list(d.tags or ()) for d in first if d.code == "WF213"] == [[lsp.DiagnosticTag.Unnecessary]]
    config = folder / ".wflint.toml"
    config.write_text('ignore = ["WF213"]\n[severity]\nWF109 = "warning"\n')
    before = len(PUBLISHED[doc.uri])
    client.workspace_did_change_watched_files(lsp.DidChangeWatchedFilesParams(
        changes=[lsp.FileEvent(uri=config.as_uri(), type=lsp.FileChangeType.Created)]))
    for _ in range(1500):
        if len(PUBLISHED[doc.uri]) > before:
            break
        await asyncio.sleep(0.01)
    assert any(r.method == lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in REGISTERED)
    diags = PUBLISHED[doc.uri][-1][1]
    assert codes(diags) == ["WF109", "WF211"]
    assert next(d for d in diags if d.code == "WF109").severity == lsp.DiagnosticSeverity.Warning
    doc.close()


# =========================================================================== code actions


async def _actions(client: LanguageClient, doc: Doc, diag: lsp.Diagnostic) -> list[lsp.CodeAction]:
    return await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc.ident(), range=diag.range, context=lsp.CodeActionContext(diagnostics=[diag])))


async def test_quick_fix_renames_with_every_reference_and_rechecks_clean(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "invalid" / "label_with_dash.json")
    (diag,) = await doc.diagnostics()
    assert diag.code == "WF106"
    actions = await _actions(client, doc, diag)
    fix = next(a for a in actions if a.kind == lsp.CodeActionKind.QuickFix and "Rename" in a.title)
    assert fix.is_preferred and list(fix.diagnostics) == [diag]
    assert len(fix.edit.changes[doc.uri]) == doc.text.count("post-to-ops-channel")  # the label and its references
    doc.apply(fix.edit)
    assert await doc.diagnostics() == []
    assert "post-to-ops-channel" not in doc.text and "post_to_ops_channel" in doc.text
    doc.close()


async def test_quick_fix_quotes_a_yaml11_trap(client: LanguageClient, workspace: Path):
    text = ("title: Trap\nworkflow_definition:\n  parameters:\n"
            "    - {parameter_type: workflow, key: answer, workflow_parameter_type: string, default_value: no}\n"
            "  blocks:\n    - block_type: navigation\n      label: open\n      url: https://example.com\n"
            "      navigation_goal: Answer {{ answer }}\n")
    doc = Doc(client, workspace / "trap.yaml", text)
    diags = await doc.diagnostics()
    trap = next(d for d in diags if d.code == "WF004")
    fix = next(a for a in await _actions(client, doc, trap) if a.title.startswith("Quote"))
    doc.apply(fix.edit)
    assert 'default_value: "no"' in doc.text
    assert await doc.diagnostics() == []
    doc.close()


async def test_suppress_on_this_line_silences_only_that_finding(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "invalid" / "dangling_branch_target.yaml")
    (diag,) = await doc.diagnostics()
    suppress = next(a for a in await _actions(client, doc, diag) if a.title == f"Suppress {diag.code} on this line")
    # a client that sends no diagnostics with the request gets the same actions on the range
    bare = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc.ident(), range=diag.range, context=lsp.CodeActionContext(diagnostics=[])))
    assert [a.title for a in bare if a.kind == lsp.CodeActionKind.QuickFix] == [
        "Rename next_block_label 'accept_booking' to 'accept_quote'", f"Suppress {diag.code} on this line"]
    doc.apply(suppress.edit)
    assert f"# wflint: disable={diag.code}" in doc.text
    assert await doc.diagnostics() == []
    doc.close()


async def test_fix_all_source_action(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "invalid" / "label_with_dash.json")
    await doc.diagnostics()
    actions = await client.text_document_code_action_async(lsp.CodeActionParams(
        text_document=doc.ident(), range=lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0)),
        context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.SourceFixAll])))
    (fix_all,) = actions
    doc.apply(fix_all.edit)
    assert await doc.diagnostics() == []
    doc.close()


# =========================================================================== hover


async def _hover(client: LanguageClient, doc: Doc, position: lsp.Position) -> str | None:
    h = await client.text_document_hover_async(lsp.HoverParams(text_document=doc.ident(), position=position))
    return None if h is None else h.contents.value


async def test_hover_rule_docs_field_docs_and_references(client: LanguageClient, workspace: Path):
    bad = Doc(client, workspace / "invalid" / "next_block_label_typo.json")
    (diag,) = await bad.diagnostics()
    text = await _hover(client, bad, diag.range.start)
    assert text.startswith("**WF202 unknown-next-block**") and "**Why.**" in text

    doc = Doc(client, workspace / "valid" / "nightly_order_status_sync.yaml")
    await doc.diagnostics()
    text = await _hover(client, doc, doc.position("has_header_row", 3))
    assert "**has_header_row** (google_sheets_read block)" in text and "default: `true`" in text
    text = await _hover(client, doc, doc.position("loop_over_parameter_key: read_open_orders_output", 30))
    label_line = doc.text.count("\n", 0, doc.text.index(" label: read_open_orders")) + 1
    assert "block **read_open_orders**" in text and f"line {label_line}" in text
    text = await _hover(client, doc, doc.position("{{ orders_sheet_url", 5))
    assert "parameter **orders_sheet_url**" in text and "Google Sheet" in text
    bad.close()
    doc.close()


# =========================================================================== completion


async def _complete(client: LanguageClient, doc: Doc, position: lsp.Position) -> list[str]:
    result = await client.text_document_completion_async(lsp.CompletionParams(text_document=doc.ident(), position=position))
    items = result.items if isinstance(result, lsp.CompletionList) else result
    return [i.label for i in items]


async def test_completion_types_fields_labels_and_keys(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "valid" / "nightly_order_status_sync.yaml")
    await doc.diagnostics()
    from wflint import model

    # block types
    assert await _complete(client, doc, doc.position("block_type: google_sheets_read", len("block_type: goo"))) == list(model.BLOCK_TYPES)
    # next_block_label: the same scope only, not the block itself
    top = await _complete(client, doc, doc.position("next_block_label: read_open_orders", len("next_block_label: read")))
    assert top == ["read_open_orders", "process_orders", "write_sync_log"]
    inner = await _complete(client, doc, doc.position("next_block_label: read_order_status", len("next_block_label: read")))
    assert "open_order" not in inner and "read_order_status" in inner and "process_orders" not in inner
    # templates: loop variables only inside loops
    in_loop = await _complete(client, doc, doc.position('url: "{{ current_value.order_url', len('url: "{{ ')))
    outside = await _complete(client, doc, doc.position('url: "{{ shop_admin_url', len('url: "{{ ')))
    assert "current_value" in in_loop and "current_value" not in outside
    assert {"shop_admin_url", "read_open_orders_output", "workflow_run_id"} <= set(outside)
    assert "sign_in_to_shop_admin_output" not in outside  # the block's own output
    # parameter_keys
    keys = await _complete(client, doc, doc.position("parameter_keys: [shop_admin_login]", len("parameter_keys: [")))
    assert "shop_admin_login" in keys and "read_open_orders_output" in keys
    # fields of the block at the cursor, while the line is being typed
    typing = doc.text.replace("      has_header_row: true\n", "      has_header_row: true\n      cont\n")
    doc.change(typing)
    fields = await _complete(client, doc, doc.position("      cont\n", 10))
    assert "continue_on_failure" in fields and "has_header_row" not in fields and "spreadsheet_url" not in fields
    doc.close()


async def test_completion_snippets_for_a_new_block(client: LanguageClient, workspace: Path):
    text = "title: New\nworkflow_definition:\n  parameters: []\n  blocks:\n    - \n"
    doc = Doc(client, workspace / "new.yaml", text)
    result = await client.text_document_completion_async(lsp.CompletionParams(
        text_document=doc.ident(), position=lsp.Position(line=4, character=6)))
    task = next(i for i in result.items if i.label == "block_type: navigation")
    assert task.insert_text_format == lsp.InsertTextFormat.Snippet
    assert "label: ${1}" in task.text_edit.new_text and "navigation_goal: ${2}" in task.text_edit.new_text
    doc.close()


# =========================================================================== navigation


async def test_definition_references_and_rename(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "valid" / "nightly_order_status_sync.yaml")
    assert await doc.diagnostics() == []
    use = doc.position("loop_over_parameter_key: read_open_orders_output", len("loop_over_parameter_key: "))
    (target,) = await client.text_document_definition_async(lsp.DefinitionParams(text_document=doc.ident(), position=use))
    assert target.range.start == doc.position(" label: read_open_orders", len(" label: "))
    refs = await client.text_document_references_async(lsp.ReferenceParams(
        text_document=doc.ident(), position=use, context=lsp.ReferenceContext(include_declaration=True)))
    lines = sorted(r.range.start.line for r in refs)
    assert lines == sorted({doc.position("next_block_label: read_open_orders").line,
                            doc.position(" label: read_open_orders").line, use.line})
    # a parameter used in a template
    key_use = doc.position("{{ orders_sheet_url", 3)
    (key_def,) = await client.text_document_definition_async(lsp.DefinitionParams(text_document=doc.ident(), position=key_use))
    assert key_def.range.start == doc.position("key: orders_sheet_url", len("key: "))

    prepared = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(text_document=doc.ident(), position=use))
    assert prepared.placeholder == "read_open_orders"
    edit = await client.text_document_rename_async(lsp.RenameParams(text_document=doc.ident(), position=use, new_name="load_orders"))
    doc.apply(edit)
    assert "read_open_orders" not in doc.text and "load_orders_output" in doc.text
    assert await doc.diagnostics() == []
    with pytest.raises(Exception, match="not a valid label"):
        await client.text_document_rename_async(lsp.RenameParams(
            text_document=doc.ident(), position=doc.position(" label: load_orders", 9), new_name="load-orders"))
    doc.close()


async def test_document_symbols_nest_loop_bodies(client: LanguageClient, workspace: Path):
    doc = Doc(client, workspace / "valid" / "nightly_order_status_sync.yaml")
    symbols = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=doc.ident()))
    names = [s.name for s in symbols]
    assert names[:3] == ["orders_sheet_url", "shop_admin_url", "shop_admin_login"]
    loop = next(s for s in symbols if s.name == "process_orders")
    assert loop.detail == "for_loop" and "open_order" in [c.name for c in loop.children]
    doc.close()


# =========================================================================== hostile documents


async def test_malformed_binary_and_huge_documents_never_stop_the_server(client: LanguageClient, workspace: Path):
    broken = Doc(client, workspace / "broken.yaml", "title: x\nworkflow_definition:\n  blocks: [\n    - {label: a\n")
    assert codes(await broken.diagnostics()) == ["WF001"]
    assert await _complete(client, broken, lsp.Position(line=3, character=10)) is not None
    deep = Doc(client, workspace / "deep.yaml", "workflow_definition: " + "[" * 50000 + "\n")
    (too_deep,) = await deep.diagnostics()
    assert too_deep.severity == lsp.DiagnosticSeverity.Error and "deep" in too_deep.message
    assert await _hover(client, deep, lsp.Position(line=0, character=3)) is None
    binary = Doc(client, workspace / "binary.json", "\x00\x01workflow_definition\x00\xff\ufffd" * 50, language="json")
    assert codes(await binary.diagnostics()) == ["WF001"]
    huge_text = "title: big\nworkflow_definition:\n  parameters: []\n  blocks:\n" + "    - {block_type: wait, label: w, wait_sec: 1}\n" * 60000
    huge = Doc(client, workspace / "huge.yaml", huge_text)
    started = time.monotonic()
    small = Doc(client, workspace / "valid" / "freight_rate_quotes_v2.yaml")
    assert await small.diagnostics() == []
    hovered = await _hover(client, small, small.position("block_type", 2))
    assert hovered is not None
    assert time.monotonic() - started < 10
    assert "too large" in (await huge.diagnostics())[0].message
    for d in (broken, deep, binary, huge, small):
        d.close()
