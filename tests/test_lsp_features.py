"""The language server's features as plain functions (no server process): the cases the
end-to-end tests do not reach cheaply: position encodings, JSON files, update bodies, the
quick fixes against `wflint fix`, suppressions that would change the data."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pygls")
from lsprotocol import types as lsp  # noqa: E402

from wflint.api import check_text  # noqa: E402
from wflint.project.config import Config  # noqa: E402
from wflint.document.source import SourceFile  # noqa: E402
from wflint.fix import fix_text  # noqa: E402
from wflint.fix.intent import CODES as INTENT_CODES  # noqa: E402
from wflint.fix.targeted import fixes, reference_spans  # noqa: E402
from wflint.lsp import actions, navigation, symbols  # noqa: E402
from wflint.lsp.completion import complete  # noqa: E402
from wflint.lsp.diagnostics import excluded, findings, to_lsp  # noqa: E402
from wflint.lsp.documents import Document  # noqa: E402
from wflint.lsp.hover import hover  # noqa: E402
from wflint.lsp.positions import LineIndex  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FIX_INPUTS = sorted(p for p in (FIXTURES / "fix").iterdir() if ".fixed." not in p.name)


def doc_of(path: Path, text: str | None = None) -> Document:
    return Document(path.as_uri(), str(path), path.read_text() if text is None else text)


def splice(text: str, splices) -> str:
    for a, b, new in sorted(splices, reverse=True):
        text = text[:a] + new + text[b:]
    return text


@pytest.mark.parametrize("encoding, expected", [("utf-16", 9), ("utf-8", 12), ("utf-32", 8)])
def test_positions_count_columns_in_the_negotiated_encoding(encoding, expected):
    text = "a: x\r\nb: 'é😀'c\n"
    lines = LineIndex(text, encoding)
    end = text.index("c") + 1
    assert lines.position(end) == lsp.Position(line=1, character=expected)
    assert lines.offset(lines.position(end)) == end
    assert lines.offset(lsp.Position(line=0, character=99)) == text.index("\r")  # clamped to the line


def test_diagnostic_ranges_use_utf16_columns_after_non_ascii_text():
    text = '{title: "Zürich 😀", workflow_definition: {parameters: [], blocks: [{block_type: wait, label: w, wait_sec: 1, bogus: 1}]}}\n'
    doc = Document("file:///w.yaml", "w.yaml", text)
    (d,) = to_lsp(doc, findings(doc, Config()))
    assert d.code == "WF104"
    assert d.range.start.line == 0
    line = text.split("\n")[0]
    assert line.encode("utf-16-le")[2 * d.range.start.character:].decode("utf-16-le").startswith("bogus")


@pytest.mark.parametrize("path", FIX_INPUTS, ids=lambda p: p.name)
def test_the_quick_fixes_together_are_wflint_fix(path: Path):
    """Every fix is offered on a diagnostic it answers, and applying all of them (each computed
    on the original text) gives exactly what `wflint fix` writes."""
    text = path.read_text()
    source = SourceFile(text, str(path))
    diags = check_text(text, str(path))
    offered = fixes(text, str(path))
    for f in offered:
        a, b = f.anchor
        assert any(d.code in f.codes and a <= source.offset(d.line, d.column) <= b for d in diags), f.title
    # the unsafe renames (offered one at a time, each on the text as it is) are left out here
    safe = [f for f in offered if not set(f.codes) & set(INTENT_CODES)]
    assert splice(text, {s for f in safe for s in f.splices}) == fix_text(text, str(path)).text


@pytest.mark.parametrize("path", sorted((FIXTURES / "rules" / "WF012").glob("bad_*.*[nl]")), ids=lambda p: p.name)
def test_the_stored_form_quick_fix_is_wflint_fix_on_wf012(path: Path):
    """The stored-form conversion is offered on its WF012 diagnostic, and after it the editor's
    further quick fixes (if any) lead to what `wflint fix` writes."""
    text = path.read_text()
    diags = check_text(text, str(path))
    (stored,) = [f for f in fixes(text, str(path)) if "WF012" in f.codes]
    assert any(d.code == "WF012" for d in diags)
    converted = splice(text, set(stored.splices))
    assert not any(d.code == "WF012" for d in check_text(converted, str(path)))
    rest = fixes(converted, str(path))
    assert splice(converted, {s for f in rest for s in f.splices}) == fix_text(text, str(path)).text


def test_suppression_joins_an_existing_comment_and_is_never_offered_inside_a_block_scalar():
    text = ("title: t\nworkflow_definition:\n  parameters:\n"
            "    - {parameter_type: workflow, key: unused, workflow_parameter_type: string}  # wflint: disable=WF104\n"
            "  blocks:\n    - block_type: navigation\n      label: go\n      url: https://example.com\n"
            "      navigation_goal: |\n        Open {{ nowhere }} now\n")
    doc = Document("file:///s.yaml", "s.yaml", text)
    diags = to_lsp(doc, findings(doc, Config()))
    by_code = {d.code: d for d in diags}
    assert {"WF213", "WF402", "WF900"} <= set(by_code)
    params = lsp.CodeActionParams(text_document=lsp.TextDocumentIdentifier(uri=doc.uri), range=by_code["WF213"].range,
                                  context=lsp.CodeActionContext(diagnostics=[by_code["WF213"]]))
    (action,) = [a for a in actions.code_actions(doc, Config(), params) if a.title.startswith("Suppress")]
    (edit,) = action.edit.changes[doc.uri]
    assert edit.new_text == "WF104,WF213"
    # the template lives in a block scalar: a comment there would be text, so none is offered
    params = lsp.CodeActionParams(text_document=lsp.TextDocumentIdentifier(uri=doc.uri), range=by_code["WF402"].range,
                                  context=lsp.CodeActionContext(diagnostics=[by_code["WF402"]]))
    assert not [a for a in actions.code_actions(doc, Config(), params) if a.title.startswith("Suppress")]


def test_json_files_complete_navigate_and_hover():
    path = FIXTURES / "valid" / "competitor_price_watch.json"
    doc = doc_of(path)
    text = doc.text
    at = text.index('"next_block_label": "') + len('"next_block_label": "')
    labels = [i.label for i in complete(doc, at).items]
    assert "extract_prices" in labels and "fetch_product_page" not in labels
    use = text.index("{{ product_url") + 4
    (definition,) = navigation.definition(doc, use)
    assert text[doc.lines.offset(definition.range.start):doc.lines.offset(definition.range.end)] == "product_url"
    assert len(navigation.references(doc, use)) == len(reference_spans(text, str(path), "product_url", "key"))
    assert "**persist_browser_session**" in hover(doc, text.index('"persist_browser_session"') + 2, []).contents.value


def test_update_body_names_are_found_and_renamed_inside_yaml_definition():
    path = FIXTURES / "valid" / "supplier_screening_update_body.yaml"
    doc = doc_of(path)
    use = doc.text.index("research_supplier_output") + 3
    (definition,) = navigation.definition(doc, use)
    assert definition.range.start.line == doc.text[: doc.text.index("label: research_supplier")].count("\n")
    edit = navigation.rename(doc, use, "research")
    new = splice(doc.text, [(doc.lines.offset(e.range.start), doc.lines.offset(e.range.end), e.new_text)
                            for e in edit.changes[doc.uri]])
    assert "research_supplier" not in new and check_text(new, str(path)) == []
    assert [s.name for s in symbols.symbols(doc)][:2] == ["supplier_name", "supplier_site"]


def test_rename_refuses_a_name_that_is_taken_or_invalid():
    doc = doc_of(FIXTURES / "valid" / "nightly_order_status_sync.yaml")
    use = doc.text.index(" label: read_open_orders") + 8
    with pytest.raises(navigation.RenameRefused, match="already"):
        navigation.rename(doc, use, "process_orders")
    with pytest.raises(navigation.RenameRefused, match="not a valid label"):
        navigation.rename(doc, use, "2nd")


def test_finally_block_label_completes_top_level_blocks_only():
    doc = doc_of(FIXTURES / "valid" / "nightly_order_status_sync.yaml")
    text = doc.text.replace("  version: 2\n", "  version: 2\n  finally_block_label: \n", 1)
    doc = doc_of(FIXTURES / "valid" / "nightly_order_status_sync.yaml", text)
    at = text.index("finally_block_label: ") + len("finally_block_label: ")
    labels = [i.label for i in complete(doc, at).items]
    assert labels == ["sign_in_to_shop_admin", "read_open_orders", "process_orders", "write_sync_log"]


def test_excluded_files_get_no_diagnostics(tmp_path: Path):
    (tmp_path / ".wflint.toml").write_text('exclude = ["drafts/**"]\n')
    from wflint.project.config import discover

    config = discover(tmp_path)
    draft = tmp_path / "drafts" / "x.yaml"
    assert excluded(str(draft), config) and not excluded(str(tmp_path / "x.yaml"), config)
    source = (FIXTURES / "invalid" / "dangling_branch_target.yaml").read_text()
    assert findings(Document(draft.as_uri(), str(draft), source), config) == []


def test_a_broken_configuration_is_reported_once_and_the_defaults_are_used(tmp_path: Path):
    from wflint.lsp.server import ConfigCache

    messages: list[str] = []
    cache = ConfigCache(messages.append)
    (tmp_path / ".wflint.toml").write_text("select = [\"WF999999\"]\n")
    flow = str(tmp_path / "flow.yaml")
    assert cache.for_path(flow).select == ["ALL"]
    assert cache.for_path(flow).select == ["ALL"]
    assert len(messages) == 1 and "WF999999" in messages[0]
    (tmp_path / ".wflint.toml").write_text('ignore = ["WF213"]\n')
    import os

    os.utime(tmp_path / ".wflint.toml", ns=(1, 1))  # a different time, however fast the file system
    assert cache.for_path(flow).ignore == ["WF213"]


def test_names_are_found_in_parameter_keys_and_inside_tags_only():
    text = ("title: t\nworkflow_definition:\n  parameters:\n"
            "    - {parameter_type: workflow, key: site, workflow_parameter_type: string}\n"
            "  blocks:\n    - block_type: navigation\n      label: go\n      url: https://example.com\n"
            "      parameter_keys: [site]\n"
            "      navigation_goal: Open site, then {{ site }} and {# site #} {{ x.site }}\n")
    doc = Document("file:///n.yaml", "n.yaml", text)
    key = text.index("key: site") + 5
    for needle, delta in (("[site]", 1), ("{{ site }}", 3)):
        (definition,) = navigation.definition(doc, text.index(needle) + delta)
        assert doc.lines.offset(definition.range.start) == key
    for needle, delta in (("Open site", 5), ("{# site", 3), ("x.site", 2)):
        assert navigation.definition(doc, text.index(needle) + delta) == []
    refs = navigation.references(doc, key)
    assert sorted(doc.lines.offset(r.range.start) for r in refs) == [key, text.index("[site]") + 1, text.index("{{ site") + 3]


ALL_FIXTURES = sorted(p for sub in ("valid", "invalid") for p in (FIXTURES / sub).iterdir() if p.suffix in (".yaml", ".json"))


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name)
def test_every_request_answers_anywhere_in_a_fixture(path: Path):
    """Hover, completion, definition, references and prepare-rename at offsets spread over
    each fixture (and on a copy cut short mid-line, as text being typed) never raise."""
    full = path.read_text()
    for text in (full, full[: len(full) * 2 // 3]):
        doc = doc_of(path, text)
        diags = findings(doc, Config())
        step = max(1, len(text) // 7)
        for offset in range(3, len(text), step):
            hover(doc, offset, diags)
            assert complete(doc, offset).items is not None
            navigation.definition(doc, offset)
            if navigation.prepare_rename(doc, offset) is not None:
                assert navigation.references(doc, offset)
        symbols.symbols(doc)


def test_wflint_lsp_without_the_extra_says_how_to_install_it(monkeypatch):
    import sys

    from click.testing import CliRunner

    from wflint.cli import main

    for name in [m for m in sys.modules if m == "wflint.lsp.server" or m.startswith("pygls")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pygls", None)
    result = CliRunner().invoke(main, ["lsp"])
    assert result.exit_code == 2
    assert "pip install './wflint[lsp]'" in result.output  # from a clone: the name is not on a package index


def test_names_that_are_not_identifiers_are_found_in_templates():
    path = FIXTURES / "rules" / "WF106" / "bad_dash_yaml_renamed.yaml"
    doc = doc_of(path)
    use = doc.text.index("{{ start-url }}") + 5
    (definition,) = navigation.definition(doc, use)
    assert doc.lines.offset(definition.range.start) == doc.text.index("key: start-url") + 5
    prepared = navigation.prepare_rename(doc, use)
    assert prepared.placeholder == "start-url"
    assert doc.text[doc.lines.offset(prepared.range.start):doc.lines.offset(prepared.range.end)] == "start-url"


def test_rule_links_default_to_the_repository_docs_as_sarif_links_them():
    from wflint.lsp.diagnostics import rule_link
    from wflint.report.links import rule_doc_url

    doc = doc_of(FIXTURES / "invalid" / "next_block_label_typo.json")
    (d,) = to_lsp(doc, findings(doc, Config()))
    assert d.code_description.href == rule_doc_url("WF202", "unknown-next-block")
    assert d.code_description.href.endswith("/docs/rules.md#wf202-unknown-next-block")
    assert rule_link("WF202", "unknown-next-block", "https://x.test/r.html") == "https://x.test/r.html#wf202-unknown-next-block"


def test_completion_and_hover_answer_as_the_configured_release():
    # split_pdf came in 1.0.47; file_download's storage settings too (the model's since marks)
    text = ("title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n"
            "    - block_type: \n      label: a\n"
            "    - block_type: file_download\n      label: d\n      navigation_goal: get it\n      \n")
    at_type = text.index("block_type: \n") + len("block_type: ")
    at_key = len(text) - 1
    newest = Document("file:///w.yaml", "w.yaml", text)
    old = Document("file:///w.yaml", "w.yaml", text, release="1.0.46")
    assert "split_pdf" in [i.label for i in complete(newest, at_type).items]
    assert "split_pdf" not in [i.label for i in complete(old, at_type).items]
    assert "download_target" in [i.label for i in complete(newest, at_key).items]
    old_keys = [i.label for i in complete(old, at_key).items]
    assert "download_target" not in old_keys and "url" in old_keys
    hovered = Document("file:///w.yaml", "w.yaml", text.replace("block_type: \n", "block_type: split_pdf\n"),
                       release="1.0.46")
    assert hover(hovered, hovered.text.index("split_pdf") + 2, []) is None
