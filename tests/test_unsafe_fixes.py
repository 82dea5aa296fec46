"""``wflint fix --unsafe-fixes`` and the editor's quick fixes for what the author meant: a
misspelt key (WF109), label reference (WF202), parameter key (WF205) or template variable
(WF402) renamed to its one near match, proven like every fix; the safe default leaves them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.api import check_text
from wflint.cli import main
from wflint.fix import fix_text
from wflint.fix.targeted import fixes

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "fixtures" / "rules"

MISSPELT = """\
title: Open pricing
workflow_definition:
  parameters:
    - {parameter_type: workflow, key: search_term, workflow_parameter_type: string}
  blocks:
    - block_type: task
      label: open_pricing   # the pricing page
      url: "https://example.com/search?q={{ serch_term }}"
      navigaton_goal: Open the pricing page
      parameter_keys: [search_terms]
      next_block_label: setle
    - {block_type: wait, label: settle, wait_sec: 1}
"""


def codes(text: str, path: str = "f.yaml") -> list[str]:
    return [d.code for d in check_text(text, path)]


def test_the_safe_default_leaves_what_only_the_author_can_confirm():
    assert fix_text(MISSPELT, "f.yaml").text == MISSPELT


def test_unsafe_fixes_rename_each_name_to_its_near_match_and_keep_everything_else():
    assert {"WF109", "WF202", "WF205", "WF402"} <= set(codes(MISSPELT))
    result = fix_text(MISSPELT, "f.yaml", unsafe=True)
    assert result.text == (MISSPELT.replace("navigaton_goal", "navigation_goal").replace("serch_term", "search_term")
                           .replace("[search_terms]", "[search_term]").replace("setle", "settle"))
    assert "# the pricing page" in result.text
    assert [c.split(": ", 1)[1] for c in result.changes] == [
        "template variable 'serch_term' → 'search_term' (WF402, unsafe)",
        "renamed misspelt key 'navigaton_goal' → 'navigation_goal' (WF109, unsafe)",
        "parameter_keys entry 'search_terms' → 'search_term' (WF205, unsafe)",
        "next_block_label 'setle' → 'settle' (WF202, unsafe)",
    ]
    assert not {"WF109", "WF202", "WF205", "WF402"} & set(codes(result.text))


def test_a_template_in_a_misspelt_field_is_fixed_once_the_field_is():
    text = MISSPELT.replace("navigaton_goal: Open the pricing page", 'navigaton_goal: "Find {{ serch_term }}"')
    result = fix_text(text, "f.yaml", unsafe=True)
    assert 'navigation_goal: "Find {{ search_term }}"' in result.text
    assert not {"WF109", "WF402"} & set(codes(result.text))


def test_json_keys_are_renamed_in_place():
    text = json.dumps({"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "extraction", "label": "read", "data_extraction_goal": "prices", "data_schem": {"type": "object"}}]}},
        indent=2)
    result = fix_text(text, "f.json", unsafe=True)
    assert result.text == text.replace('"data_schem"', '"data_schema"')
    assert "WF109" not in codes(result.text, "f.json")


@pytest.mark.parametrize("fixture,why", [
    (RULES / "WF109" / "bad_typo.yaml", "'navigation_goal' is set too"),
])
def test_a_rename_that_would_lose_a_value_is_left_with_a_note(fixture, why):
    text = fixture.read_text()
    result = fix_text(text, str(fixture), unsafe=True)
    assert result.text == text and not result.changes
    assert any(why in note for note in result.notes)


def test_several_candidates_are_a_question_not_a_fix():
    text = MISSPELT.replace("navigaton_goal", "naviagtion_goal")  # close to one field only
    assert "navigation_goal" in fix_text(text, "f.yaml", unsafe=True).text
    from wflint.checks.intent import did_you_mean, suggested_name

    assert suggested_name(did_you_mean(["a_b", "a_c"])) is None
    assert suggested_name(did_you_mean(["a_b"])) == "a_b"


def test_the_command_shows_unsafe_fixes_with_diff_and_writes_them_only_when_asked(tmp_path):
    flow = tmp_path / "flow.yaml"
    flow.write_text(MISSPELT)
    runner = CliRunner()
    safe = runner.invoke(main, ["fix", str(flow)])
    assert safe.exit_code == 0 and flow.read_text() == MISSPELT
    shown = runner.invoke(main, ["fix", "--unsafe-fixes", "--diff", str(flow)])
    assert shown.exit_code == 0 and flow.read_text() == MISSPELT
    assert "-      navigaton_goal:" in shown.stdout and "+      navigation_goal:" in shown.stdout
    checked = runner.invoke(main, ["fix", "--unsafe-fixes", "--check", str(flow)])
    assert checked.exit_code == 1 and flow.read_text() == MISSPELT
    done = runner.invoke(main, ["fix", "--unsafe-fixes", str(flow)])
    assert done.exit_code == 0 and "WF109" not in codes(flow.read_text())
    assert "navigation_goal" in flow.read_text()


def test_the_editor_offers_each_rename_on_its_finding():
    offered = {f.codes: f for f in fixes(MISSPELT, "f.yaml") if set(f.codes) & {"WF109", "WF202", "WF205", "WF402"}}
    assert set(offered) == {("WF109",), ("WF202",), ("WF205",), ("WF402",)}
    assert offered[("WF109",)].title == "Rename key 'navigaton_goal' to 'navigation_goal'"
    start, end = offered[("WF109",)].anchor
    assert MISSPELT[start:end] == "navigaton_goal"


def test_the_language_server_offers_the_rename_as_the_preferred_quick_fix():
    pytest.importorskip("pygls")
    from lsprotocol import types as lsp

    from wflint.project.config import Config
    from wflint.lsp import actions
    from wflint.lsp.diagnostics import findings, to_lsp
    from wflint.lsp.documents import Document

    doc = Document("file:///f.yaml", "f.yaml", MISSPELT)
    [d] = [d for d in to_lsp(doc, findings(doc, Config())) if d.code == "WF109"]
    params = lsp.CodeActionParams(text_document=lsp.TextDocumentIdentifier(uri=doc.uri), range=d.range,
                                  context=lsp.CodeActionContext(diagnostics=[d]))
    quick = [a for a in actions.code_actions(doc, Config(), params) if a.kind == lsp.CodeActionKind.QuickFix]
    assert quick[0].title == "Rename key 'navigaton_goal' to 'navigation_goal'" and quick[0].is_preferred
    (edit,) = quick[0].edit.changes[doc.uri]
    assert edit.new_text == "navigation_goal"
    assert [a.title for a in quick[1:]] == ["Suppress WF109 on this line"]
