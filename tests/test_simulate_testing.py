"""``wflint test`` as a team uses it for browser flows (issue 31): secrets resolved and masked as
the 1.0.56 engine does, the ``http:`` test double with expectations on the requests the run
rendered, and strict test files (exit 2 with a did-you-mean, the rest of the suite reported)."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.cli import main
from wflint.engine import simulate
from wflint.engine.secrets import CREDENTIAL_CONTEXT, placeholder

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "fixtures" / "simulate" / "tutorial"
PASSWORD, TOKEN = "not-the-real-one", "test-token-123"


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture()
def leads(tmp_path):
    """The tutorial's workflow in a scratch directory, to write test files beside."""
    shutil.copy(TUTORIAL / "lead_sync.yaml", tmp_path / "lead_sync.yaml")
    return tmp_path


def _write(directory: Path, text: str, name: str = "lead_sync.test.yaml") -> Path:
    path = directory / name
    path.write_text(text)
    return path


HOT_AND_COLD = """
    tasks:
      read_leads:
        extracted_information:
          leads: [{name: Ada, email: ada@example.com, score: 91}, {name: Bob, email: bob@example.com, score: 12}]
"""
SECRETS = f"""
secrets:
  portal_login: {{username: sales-bot@example.com, password: {PASSWORD}}}
  crm_token: {TOKEN}
"""
CRM = """
http:
  - {method: POST, url_matches: "crm\\\\.example\\\\.com/api/leads", status: 201, body: {id: 77}}
"""


def test_the_tutorial_workflow_passes_its_test_file_and_no_secret_leaves_the_run():
    result = run("test", str(TUTORIAL), "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["summary"]["failed"] == 0
    traces = run("simulate", "--format", "json", str(TUTORIAL / "lead_sync.yaml"), str(TUTORIAL / "lead_sync.test.yaml"))
    assert traces.exit_code == 0
    assert PASSWORD not in traces.output and TOKEN not in traces.output
    # the service's mask where the value was sent, and its request output kept the rest
    assert '"Authorization": "Bearer *****"' in traces.output
    assert json.loads(traces.output)[0]["status"] == "completed"


def test_secrets_render_as_the_engines_placeholders_and_only_http_request_sends_the_value():
    request = {"title": "t", "workflow_definition": {"version": 2, "parameters": [
        {"parameter_type": "credential", "key": "login", "credential_id": "c1"},
        {"parameter_type": "aws_secret", "key": "token", "aws_key": "k"},
    ], "blocks": [
        {"block_type": "code", "label": "peek", "code": "u = '{{ login.username }}'\nt = '{{ token }}'\nc = '{{ login.context }}'"},
        {"block_type": "http_request", "label": "call", "method": "POST", "url": "https://api.example.com/x",
         "headers": {"X-Token": "{{ token }}"}, "body": {"user": "{{ login.username }}"}},
    ]}}
    case = {"name": "s", "secrets": {"login": {"username": "robot@example.com", "password": "pw-123456"}, "token": "abcdef123"},
            "http": [{"url": "https://api.example.com/x", "body": {"echo": "abcdef123"}}]}
    trace = simulate(request, case, network=False)
    assert trace["status"] == "completed", trace
    peek = trace["trace"][0]["output"]
    # a code block sees what the engine gives templates: placeholders, never the value
    assert peek == {"u": placeholder("login") + "_username", "t": placeholder("token"), "c": CREDENTIAL_CONTEXT}
    call = trace["trace"][1]["output"]
    assert call["request_headers"]["X-Token"] == "*****" and call["request_body"] == {"user": "*****"}
    assert call["response_body"] == {"echo": "*****"}  # a secret echoed back is masked too
    assert "abcdef123" not in json.dumps(trace) and "robot@example.com" not in json.dumps(trace)


def test_a_needed_secret_the_case_does_not_give_fails_the_case_naming_it(leads):
    _write(leads, "secrets: {portal_login: {username: u, password: p}}\n" + CRM
           + "cases:\n  - name: no token\n" + HOT_AND_COLD + "    expect: {status: completed}\n")
    result = run("test", str(leads))
    assert result.exit_code == 1, result.output
    assert "secret crm_token is not set" in result.output and "under secrets:" in result.output


def test_http_expectations_hold_on_the_rendered_request_and_fail_showing_what_was_sent(leads):
    _write(leads, SECRETS + CRM + "cases:\n  - name: wrong body\n" + HOT_AND_COLD + """
    expect:
      requests:
        - {method: POST, body: {name: Ada, score: 90}}
        - {url: {contains: /api/leads}, count: 2}
        - {headers: {Authorization: {matches: "^Bearer \\\\*+$"}}, count: 1}
""")
    result = run("test", str(leads))
    assert result.exit_code == 1, result.output
    assert "requests[0]: no request matches" in result.output
    assert 'POST https://crm.example.com/api/leads?source=https://portal.example.com body {"name": "Ada"' in result.output
    assert 'requests[1] count: 1 request(s) match {"url": {"contains": "/api/leads"}}' in result.output
    assert "requests[2]" not in result.output  # the header held: the token was sent, masked in the record


def test_a_request_no_rule_answers_fails_a_hermetic_run_showing_the_request(leads):
    _write(leads, SECRETS + "cases:\n  - name: no crm rule\n" + HOT_AND_COLD + "    expect: {path: {contains: push_to_crm}}\n")
    result = run("test", str(leads))
    assert result.exit_code == 1, result.output
    assert "a request no http: rule answers" in result.output
    assert "POST https://crm.example.com/api/leads?source=https://portal.example.com body" in result.output


def test_http_rules_answer_errors_timeouts_and_in_turn():
    request = {"title": "t", "workflow_definition": {"version": 2, "parameters": [], "blocks": [
        {"block_type": "for_loop", "label": "each", "loop_variable_reference": "{{ [1, 2, 3] }}", "loop_blocks": [
            {"block_type": "http_request", "label": "get", "url": "https://a.example.com/{{ current_value }}",
             "continue_on_failure": True}]},
    ]}}
    rules = [{"url_matches": "/1$", "error": "connection refused"}, {"url_matches": "/2$", "timeout": True},
             {"method": "get", "url_matches": "example", "times": 1, "status": 503, "body": "busy"}]
    trace = simulate(request, {"name": "r", "http": rules}, network=False)
    rows = [r for r in trace["trace"] if r["label"] == "get"]
    assert [r["status"] for r in rows] == ["failed", "timed_out", "failed"]
    assert rows[0]["failure_reason"] == "HTTP request failed: connection refused"
    assert rows[2]["failure_reason"] == "HTTP 503: busy"


def test_a_misspelt_key_and_an_unknown_label_are_exit_2_with_a_did_you_mean_while_the_rest_runs(tmp_path):
    for name in ("a", "b", "c"):
        shutil.copy(TUTORIAL / "lead_sync.yaml", tmp_path / f"{name}.yaml")
    _write(tmp_path, SECRETS + CRM + "cases:\n  - name: misspelt\n    task: {read_leads: {}}\n", "a.test.yaml")
    _write(tmp_path, SECRETS + CRM + "cases:\n  - name: unknown label\n    tasks: {read_lead: {}}\n"
           "    expect: {blocks: {push_to_cmr: completed}, visits: [each_leads]}\n", "b.test.yaml")
    _write(tmp_path, SECRETS + CRM + "cases:\n  - name: fine\n" + HOT_AND_COLD + "    expect: {status: completed}\n",
           "c.test.yaml")
    result = run("test", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert "a.test.yaml:10:5: cases[0]: unknown key 'task' (did you mean 'tasks'?)" in result.output
    assert "cases[0].tasks: 'read_lead' names no block of the workflow (did you mean 'read_leads'?)" in result.output
    assert "'push_to_cmr' names no block of the workflow (did you mean 'push_to_crm'?)" in result.output
    assert "'each_leads' names no block of the workflow (did you mean 'each_lead'?)" in result.output
    assert "c.test.yaml ." in result.output and result.output.splitlines()[-1].startswith("1 passed, 2 errors")


def test_a_stub_of_the_wrong_kind_and_an_unknown_parameter_or_secret_are_named(leads):
    _write(leads, "cases:\n  - name: x\n    llm: {read_leads: hi}\n    parameters: {min_scor: 3}\n"
           "    secrets: {crm_tokn: x}\n")
    result = run("test", str(leads))
    assert result.exit_code == 2
    assert "'read_leads' is a extraction block; llm: stubs stand in for text_prompt blocks" in result.output
    assert "'min_scor' is no workflow parameter of the workflow (did you mean 'min_score'?)" in result.output
    assert "'crm_tokn' is no secret-bearing parameter of the workflow (did you mean 'crm_token'?)" in result.output


def test_wrong_typed_expectations_are_exit_2_not_an_internal_error(leads):
    _write(leads, "cases:\n  - name: x\n    expect: {visits: 5, does_not_visit: sign_in, blocks: {sign_in: 3}, requests: {a: 1}}\n")
    result = run("test", str(leads), "--format", "json")
    assert result.exit_code == 2, result.output
    error = json.loads(result.output)["cases"][0]["error"]
    assert "expect.visits: expected a list, got an integer" in error
    assert "expect.does_not_visit: expected a list, got text" in error
    assert "expect.requests: expected a list, got a mapping" in error


def test_an_alias_bomb_test_file_is_refused_quickly_naming_the_file_and_the_limit(leads):
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for prev, name in zip("abcdefg", "bcdefgh"):
        lines.append(f"{name}: &{name} [{','.join(['*' + prev] * 9)}]")
    lines.append("cases: [*h]")
    _write(leads, "\n".join(lines) + "\n")
    started = time.perf_counter()
    result = run("test", str(leads))
    assert time.perf_counter() - started < 30  # unbounded, it does not finish at all
    assert result.exit_code == 2
    assert "lead_sync.test.yaml:" in result.output and "'alias-nodes' limit" in result.output and "WF007" in result.output


def test_a_case_file_of_simulate_passes_the_same_limits_and_schema(leads):
    bad = _write(leads, "name: x\nparameter: {min_score: 3}\n", "case.yaml")
    result = run("simulate", str(leads / "lead_sync.yaml"), str(bad))
    assert result.exit_code == 2
    assert "case.yaml:2:1: the file: unknown key 'parameter' (did you mean 'parameters'?)" in result.output


def test_a_failure_report_says_why_a_value_is_null_and_which_defaults_ran(leads):
    _write(leads, SECRETS + "cases:\n  - name: stubbed request\n" + HOT_AND_COLD
           + "    blocks: {push_to_crm: {output: {status_code: 200}}}\n"
           + "    expect:\n      inputs: {push_to_crm: {body: {contains: Ada}}}\n"
           + "      blocks: {sign_in: {output: {extracted_information: {ok: true}}}}\n")
    result = run("test", str(leads))
    assert result.exit_code == 1, result.output
    assert "why:      a blocks: stub replaces push_to_crm: nothing of the block ran or rendered" in result.output
    assert "block sign_in output" in result.output
    assert "no stub, default used: task:sign_in" in result.output


def test_the_json_report_carries_each_cases_requests_masked_and_the_defaults_used():
    data = json.loads(run("test", str(TUTORIAL), "--format", "json").output)
    first = data["cases"][0]
    assert first["defaults_used"] == ["task:sign_in"]
    [request] = first["requests"]
    assert request["block"] == "push_to_crm" and request["method"] == "POST" and request["answered_by"] == 0
    assert request["headers"]["Authorization"] == "Bearer *****" and TOKEN not in json.dumps(data)


def test_a_secrets_value_given_among_the_parameters_counts_as_given(leads):
    _write(leads, CRM + "cases:\n  - name: secrets as parameters\n" + HOT_AND_COLD
           + f"    parameters: {{crm_token: {TOKEN}, portal_login: {{username: u@example.com, password: {PASSWORD}}}}}\n"
           + "    expect:\n      requests: [{headers: {Authorization: Bearer *****}, count: 1}]\n")
    result = run("test", str(leads))
    assert result.exit_code == 0, result.output


def test_junit_and_github_failures_name_the_defaults_used_too(leads):
    _write(leads, SECRETS + CRM + "cases:\n  - name: wrong\n" + HOT_AND_COLD + "    expect: {status: failed}\n")
    for fmt in ("junit", "github"):
        result = run("test", str(leads), "--format", fmt)
        assert result.exit_code == 1 and "no stub, default used: task:sign_in" in result.output.replace("%0A", "\n")
