"""WF401-WF404, WF004 and WF601 on realistic snippets: exact positions, the service's exact
save-time messages, scoping, and false positives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wflint.api import check_text, evaluate

ROOT = Path(__file__).resolve().parent.parent


def found(text: str, code: str, path: str = "flow.yaml"):
    return [d for d in check_text(text, path=path) if d.code == code]


def yaml_flow(blocks: str, parameters: str = "[]", extra: str = "") -> str:
    return f"title: t\nworkflow_definition:\n{extra}  parameters: {parameters}\n  blocks:\n{blocks}"


def request(blocks, parameters=(), **definition):
    return {"title": "t", "workflow_definition": {"parameters": list(parameters), "blocks": blocks, **definition}}


def codes_of(req, code):
    return [d for d in evaluate(req).diagnostics if d.code == code]


# --------------------------------------------------------------------------- WF401 positions


def test_wf401_in_a_block_scalar_points_at_the_bad_token():
    text = yaml_flow(
        "    - block_type: navigation\n      label: search\n      navigation_goal: |\n"
        "        Open the search page.\n        Search for {{ product_name } now.\n",
        "[{parameter_type: workflow, key: product_name, workflow_parameter_type: string}]")
    (d,) = found(text, "WF401")
    assert (d.line, d.column) == (9, 36)
    assert text.splitlines()[8][35:] == "} now."
    assert d.severity == "error" and d.service is None
    assert "unexpected '}'" in d.message and "the block fails at run time" in d.message
    assert "(line 2 of the template)" in d.message


def test_wf401_in_a_json_string_with_escapes():
    text = json.dumps(request([{"block_type": "text_prompt", "label": "p",
                                "prompt": "Line one\n\tline two {{ x ) }}"}]), indent=1)
    (d,) = found(text, "WF401", "flow.json")
    line = text.splitlines()[d.line - 1]
    assert line[d.column - 1:].startswith(")")


def test_wf401_in_a_plain_multiline_scalar():
    text = yaml_flow("    - block_type: text_prompt\n      label: p\n      prompt: Write a summary\n"
                     "        about {{ topic | upper(}}\n        in three sentences.\n")
    (d,) = found(text, "WF401")
    assert (d.line, d.column) == (8, 32)
    assert "unexpected '}', expected ')'" in d.message


def test_wf401_in_a_double_quoted_yaml_scalar_across_lines():
    text = yaml_flow('    - block_type: goto_url\n      label: g\n      url: "https://example.com/\n'
                     '        {{ path | }}"\n')
    (d,) = found(text, "WF401")
    assert (d.line, d.column) == (8, 19)
    assert text.splitlines()[7][18:].startswith('}}"')


# --------------------------------------------------------------------------- G4 / G5


def test_g4_payload_message_matches_the_service():
    req = request([{"block_type": "workflow_trigger", "label": "t", "workflow_permanent_id": "wpid_1",
                    "payload": {"ok": "{{ a }}", "a": {"b c": ["fine", "{{ x "]}}}])
    (d,) = codes_of(req, "WF401")
    assert d.service.status == 422
    assert d.service.detail == (
        "Invalid Jinja2 in workflow_trigger block 't': unexpected end of template, expected 'end of print "
        "statement'. (line 1) at payload.a[\"b c\"][1]: '{{ x '")
    assert d.service.order[:2] == ("G", 4)
    assert "refuses to save the workflow (422)" in d.message


def test_g4_covers_top_level_blocks_only():
    child = {"block_type": "workflow_trigger", "label": "t", "workflow_permanent_id": "wpid_1",
             "payload": {"a": "{{ x "}}
    req = request([{"block_type": "for_loop", "label": "l", "loop_variable_reference": "{{ rows }}",
                    "loop_blocks": [child]}], [{"parameter_type": "workflow", "key": "rows",
                                                "workflow_parameter_type": "json"}])
    (d,) = codes_of(req, "WF401")
    assert d.service is None and "fails at run time" in d.message


def test_g5_code_message_matches_the_service():
    req = request([{"block_type": "code", "label": "c", "code": "abcd = {{ 'x }}"}])
    (d,) = codes_of(req, "WF401")
    assert d.service.detail == "Invalid Jinja2 in code block 'c' on line 1: unexpected char \"'\" at 10"
    assert d.service.order[:2] == ("G", 5)


def test_g5_masks_jinja_in_python_comments_and_counts_lines():
    code = "# {{ not checked\nx = 1\ny = {{ a + }}\n"
    req = request([{"block_type": "for_loop", "label": "l", "loop_variable_reference": "{{ a }}",
                    "loop_blocks": [{"block_type": "code", "label": "deep", "code": code}]}],
                  [{"parameter_type": "workflow", "key": "a", "workflow_parameter_type": "json"}])
    (d,) = codes_of(req, "WF401")
    assert d.service.detail == "Invalid Jinja2 in code block 'deep' on line 3: unexpected 'end of print statement'"


def test_the_first_save_time_rejection_is_the_payload_one():
    req = request([
        {"block_type": "code", "label": "c", "code": "x = {{ }}"},
        {"block_type": "workflow_trigger", "label": "t", "workflow_permanent_id": "w", "payload": {"a": "{{"}},
    ])
    first = evaluate(req).rejections[0]
    assert first.detail.startswith("Invalid Jinja2 in workflow_trigger block 't'")


def test_wf401_in_the_code_block_of_a_file_is_at_the_file_position():
    text = yaml_flow("    - block_type: code\n      label: c\n      code: |\n        x = 1\n"
                     "        y = {{ a | }}\n", "[{parameter_type: workflow, key: a, workflow_parameter_type: string}]")
    (d,) = found(text, "WF401")
    assert (d.line, d.column) == (9, 20)
    assert d.service.detail == "Invalid Jinja2 in code block 'c' on line 2: expected token 'name', got 'end of print statement'"


# --------------------------------------------------------------------------- WF402


def test_wf402_suggests_the_closest_name():
    text = yaml_flow('    - {block_type: navigation, label: search, navigation_goal: "Find {{ product }}"}\n',
                     "[{parameter_type: workflow, key: product_name, workflow_parameter_type: string}]")
    (d,) = found(text, "WF402")
    assert d.help == "did you mean 'product_name'?"
    assert d.severity == "warning"
    assert text.splitlines()[d.line - 1][d.column - 1:].startswith("product }}")


def test_wf402_loop_variables_only_inside_loops():
    req = request([
        {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "rows",
         "loop_blocks": [{"block_type": "goto_url", "label": "go", "url": "{{ current_item.url }}"}]},
        {"block_type": "while_loop", "label": "again", "condition": {"expression": "{{ current_index < 3 }}"},
         "loop_blocks": [{"block_type": "text_prompt", "label": "tp", "prompt": "{{ current_value }}"}]},
        {"block_type": "text_prompt", "label": "after", "prompt": "{{ current_item }}"},
    ], [{"parameter_type": "workflow", "key": "rows", "workflow_parameter_type": "json"}])
    (d,) = codes_of(req, "WF402")
    assert d.message.startswith("'current_item' is only defined inside a loop body")


def test_wf402_accepts_everything_the_context_holds():
    req = request([
        {"block_type": "extraction", "label": "ex", "data_extraction_goal": "{{ workflow_title }} {{ current_date }}"},
        {"block_type": "text_prompt", "label": "tp", "prompt":
            "{{ ex_output }} {{ ex.status }} {{ tp }} {{ key }} {{ workflow_id }} {{ workflow_permanent_id }} "
            "{{ workflow_run_id }} {{ browser_session_id }} {{ workflow_run_outputs }} {{ workflow_run_summary }} "
            "{% set n = namespace(v=0) %}{% for r in ex_output %}{{ loop.index }}{{ r }}{% endfor %}"
            "{{ range(2) | list }} {{ dict(a=1) }} {{ cycler(1, 2).next() }} {{ joiner(',')() }} {{ lipsum(1) }}"},
    ], [{"parameter_type": "workflow", "key": "key", "workflow_parameter_type": "string"}],
        workflow_system_prompt="Run {{ workflow_run_id }}")
    assert codes_of(req, "WF402") == []


# --------------------------------------------------------------------------- WF403


def test_wf403_v1_list_order():
    req = request([
        {"block_type": "text_prompt", "label": "summarize", "prompt": "{{ extract_output }}"},
        {"block_type": "extraction", "label": "extract", "data_extraction_goal": "x"},
        {"block_type": "text_prompt", "label": "later", "prompt": "{{ extract_output }} {{ summarize.status }}"},
    ])
    (d,) = codes_of(req, "WF403")
    assert "'extract_output' in 'prompt' of text_prompt block 'summarize'" in d.message
    assert "blocks run in list order" in d.message


def test_wf403_v2_follows_the_routes():
    blocks = [
        {"block_type": "conditional", "label": "choose", "next_block_label": "report",
         "branch_conditions": [{"criteria": {"expression": "{{ m }}"}, "next_block_label": "fast"},
                               {"is_default": True, "next_block_label": "slow"}]},
        {"block_type": "extraction", "label": "fast", "data_extraction_goal": "x"},
        {"block_type": "text_prompt", "label": "slow", "prompt": "{{ fast_output }}"},
        {"block_type": "text_prompt", "label": "report", "prompt": "{{ fast_output }} {{ slow_output }}"},
        {"block_type": "text_prompt", "label": "fin", "prompt": "{{ report_output }}"},
    ]
    req = request(blocks, [{"parameter_type": "workflow", "key": "m", "workflow_parameter_type": "string"}],
                  version=2, finally_block_label="fin")
    (d,) = codes_of(req, "WF403")
    assert "block 'slow'" in d.message and "no next_block_label route leads from 'fast'" in d.message


def test_wf403_loop_scopes():
    req = request([
        {"block_type": "extraction", "label": "before", "data_extraction_goal": "x"},
        {"block_type": "for_loop", "label": "pages", "loop_over_parameter_key": "before_output", "loop_blocks": [
            {"block_type": "text_prompt", "label": "a", "prompt": "{{ before_output }} {{ b_output }}"},
            {"block_type": "text_prompt", "label": "b", "prompt": "{{ a_output }} {{ pages_output }}"},
        ]},
        {"block_type": "text_prompt", "label": "after", "prompt": "{{ pages_output }} {{ b_output }}"},
        {"block_type": "while_loop", "label": "w", "condition": {"expression": "{{ not inner_output }}"},
         "loop_blocks": [{"block_type": "text_prompt", "label": "inner", "prompt": "go"}]},
    ])
    messages = sorted(d.message.split(" in ")[0] for d in codes_of(req, "WF403"))
    assert messages == ["'b_output'", "'pages_output'"]


# --------------------------------------------------------------------------- WF404


def test_wf404_maps_the_python_error_into_the_file():
    text = yaml_flow("    - block_type: code\n      label: total\n      code: |\n"
                     "        items = {{ rows | tojson }}\n        total = sum(i for i in items\n"
                     "        result = total\n", "[{parameter_type: workflow, key: rows, workflow_parameter_type: json}]")
    (d,) = found(text, "WF404")
    assert (d.line, d.column) == (9, 20)
    assert "'(' was never closed (line 2 of the code)" in d.message
    assert d.service is None


@pytest.mark.parametrize("code", [
    "result = await page.title()\nreturn result",
    "{% if a %}\nx = 1\n{% endif %}\ny = {{ a }}",
    "x = {% if a %}1{% else %}2{% endif %}",
    "label = '{{ a }}'  # {{ comment",
    "{% if a %}\ndef f():\n{% else %}\ndef f(x):\n{% endif %}\n    return 1",
])
def test_wf404_accepts_code_whose_shape_depends_on_jinja_or_is_valid(code):
    req = request([{"block_type": "code", "label": "c", "code": code}],
                  [{"parameter_type": "workflow", "key": "a", "workflow_parameter_type": "string"}])
    assert codes_of(req, "WF404") == []


# --------------------------------------------------------------------------- WF004 and WF102


def test_wf004_traps_in_free_form_objects():
    text = yaml_flow("    - block_type: http_request\n      label: h\n      url: https://x.example\n"
                     "      body: {country: no, zip: 01234, at: 7:30, big: 1e3, hex: 0x1F, n: 1_000, none: ~,"
                     " on: 1, short: y, other: n, flag: true, ok: 'yes', count: 12, f: 1.5}\n")
    got = {text.splitlines()[d.line - 1][d.column - 1:].split(",")[0]: d.message for d in found(text, "WF004")}
    assert set(got) == {"no", "01234", "7:30", "1e3", "0x1F", "1_000", "~", "on: 1"}
    assert got["01234"] == "YAML 1.1 reads `01234` as the number 668"
    assert got["on: 1"] == "YAML 1.1 reads the key `on` as the boolean true"


def test_wf004_default_values_by_parameter_type():
    params = ("[{parameter_type: workflow, key: a, workflow_parameter_type: boolean, default_value: yes},"
              " {parameter_type: workflow, key: b, workflow_parameter_type: integer, default_value: 1_000},"
              " {parameter_type: workflow, key: c, workflow_parameter_type: integer, default_value: 010},"
              " {parameter_type: workflow, key: d, workflow_parameter_type: string, default_value: Off}]")
    text = yaml_flow('    - {block_type: goto_url, label: g, url: "{{ a }}{{ b }}{{ c }}{{ d }}"}\n', params)
    messages = [d.message for d in found(text, "WF004")]
    assert messages == ["YAML 1.1 reads `010` as the number 8",
                        "YAML 1.1 reads `Off` as the boolean false; the service stores the default as the text 'False'"]


def test_wf004_only_on_the_yaml_path():
    text = json.dumps(request([{"block_type": "http_request", "label": "h", "body": {"a": False}}]))
    assert found(text, "WF004", "flow.json") == []


def test_wf102_explains_the_yaml11_reading():
    text = "title: no\nworkflow_definition:\n  parameters: []\n  blocks: []\n"
    (d,) = found(text, "WF102")
    assert d.message.endswith("; YAML 1.1 reads `no` as the boolean false")
    assert d.help == "quote it: 'no'"


# --------------------------------------------------------------------------- WF601


@pytest.mark.parametrize("block, what", [
    ({"block_type": "http_request", "label": "h", "headers": {"Authorization": "Bearer 9f8e7d6c5b4a3928170"}},
     "header 'Authorization'"),
    ({"block_type": "http_request", "label": "h", "headers": {"x-api-key": "a1b2c3d4e5f6g7h8"}}, "header 'x-api-key'"),
    ({"block_type": "file_upload", "label": "u", "sftp_password": "hunter2!"}, "'sftp_password'"),
    ({"block_type": "file_download", "label": "u", "navigation_goal": "g", "aws_access_key_id": "AKIAQ3EGU7VXL2M5RT4K"},
     "'aws_access_key_id'"),
    ({"block_type": "file_upload", "label": "u",
      "sftp_private_key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"},
     "'sftp_private_key'"),
    ({"block_type": "send_email", "label": "m", "sender": "a@b.c", "recipients": ["x@y.z"], "subject": "s",
      "body": "b", "custom_smtp_host": "smtp.example.com", "custom_smtp_password": "S3cret-pass"},
     "'custom_smtp_password'"),
    ({"block_type": "code", "label": "c", "code": "key = 'ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'"}, "a GitHub token"),
    ({"block_type": "text_prompt", "label": "t", "prompt": "token xoxb-1234567890-abcdefghij"}, "a Slack token"),
    ({"block_type": "text_prompt", "label": "t",
      "prompt": "use eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
     "a JSON Web Token"),
])
def test_wf601_finds_literal_secrets(block, what):
    (d,) = codes_of(request([block]), "WF601")
    assert what in d.message and d.severity == "warning"


@pytest.mark.parametrize("block", [
    {"block_type": "http_request", "label": "h", "headers": {"Authorization": "Bearer {{ token }}",
                                                             "X-Token": "<token>", "Cookie": "${COOKIE}"}},
    {"block_type": "file_upload", "label": "u", "sftp_password": "{{ sftp_secret }}", "aws_access_key_id": "my-key-id"},
    {"block_type": "text_prompt", "label": "t", "prompt": "Paste a key like sk-your-openai-key-goes-here or sk-..."},
    {"block_type": "text_prompt", "label": "t", "prompt": "{{ 'sk-' ~ suffix_9a8b7c6d5e4f3a2b1c0d }}"},
    {"block_type": "text_prompt", "label": "t", "prompt": "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx is a placeholder"},
    {"block_type": "http_request", "label": "h", "headers": {"Authorization": "Bearer"}},
])
def test_wf601_ignores_templates_and_placeholders(block):
    assert codes_of(request([block]), "WF601") == []


def test_wf601_secret_defaults_of_secret_named_parameters():
    params = [{"parameter_type": "workflow", "key": "portal_password", "workflow_parameter_type": "string",
               "default_value": "Winter2024!"},
              {"parameter_type": "workflow", "key": "api_key", "workflow_parameter_type": "string", "default_value": ""},
              {"parameter_type": "workflow", "key": "page_token", "workflow_parameter_type": "string",
               "default_value": "abc123def456"}]
    req = request([{"block_type": "text_prompt", "label": "t",
                    "prompt": "{{ portal_password }} {{ api_key }} {{ page_token }}"}], params)
    (d,) = codes_of(req, "WF601")
    assert d.message == "parameter 'portal_password' has a literal secret as its default_value"


def test_wf601_points_at_the_key_inside_a_string():
    text = yaml_flow("    - block_type: code\n      label: c\n      code: |\n        import json\n"
                     "        client_key = \"sk-proj-4fGh7Jk2Lm9Np3Qr5St8Uv1Wx6Yz0Ab\"\n")
    (d,) = found(text, "WF601")
    assert (d.line, d.column) == (9, 23)


def test_wf601_has_no_false_positives_on_the_fixture_corpus():
    corpus = [p for p in (ROOT / "fixtures").rglob("*") if p.suffix in (".yaml", ".yml", ".json")
              and not (p.parent.name == "WF601" and p.name.startswith("bad_"))]
    spec = ROOT.parent / "shared" / "spec" / "examples"
    corpus += sorted(spec.glob("*.json")) + sorted(spec.glob("*.yaml")) if spec.is_dir() else []
    assert len(corpus) > 50
    hits = [(p.name, d.message) for p in corpus for d in check_text(p.read_text(encoding="utf-8"), path=p.name)
            if d.code == "WF601"]
    assert hits == []
