"""The engine simulator (``wflint.engine.simulate``) against the behaviour service-runs.md records.

The scenario fixtures under fixtures/simulate are run by test_simulate_cli.py through
``wflint test``; here are the behaviours that need a server, a clock or a closer look.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from wflint.engine import simulate
from wflint.engine.runner import Simulation


def wf(blocks, parameters=(), version=None, **definition):
    d = {"parameters": list(parameters), "blocks": blocks, **definition}
    if version is not None:
        d["version"] = version
    return {"title": "t", "workflow_definition": d}


def param(key, kind="string", default=None):
    p = {"parameter_type": "workflow", "key": key, "workflow_parameter_type": kind}
    if default is not None:
        p["default_value"] = default
    return p


def code(label, text, **kw):
    return {"block_type": "code", "label": label, "code": text, **kw}


def labels(result):
    return [row["label"] for row in result["trace"]]


@pytest.fixture(scope="module")
def server():
    received = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            received.append({"path": self.path, "method": self.command, "body": body,
                             "content_type": self.headers.get("Content-Type")})
            status = 500 if self.path.startswith("/boom") else 200
            payload = {"error": "boom"} if status == 500 else {"ok": True, "echo": self.path}
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", received
    httpd.shutdown()


def test_http_request_sends_the_rendered_body_with_native_json_values(server):
    base, received = server
    request = wf([
        {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "items",
         "loop_blocks": [code("sq", "v = {{ current_value }} * 2")]},
        {"block_type": "http_request", "label": "post", "method": "POST", "url": base + "/collect",
         "body": {"n": "{{ each_output | length | json }}", "items": "{{ items | json }}",
                  "items_plain": "{{ items }}"}},
    ], [param("items", "json", [2, 3, 4])])
    result = simulate(request, {"name": "http"})
    assert result["status"] == "completed", result
    sent = json.loads(received[-1]["body"])
    assert sent == {"n": 3, "items": [2, 3, 4], "items_plain": "[2, 3, 4]"}
    assert received[-1]["content_type"] == "application/json"
    output = result["trace"][-1]["output"]
    assert output["status_code"] == 200 and output["response_body"] == {"ok": True, "echo": "/collect"}


def test_http_500_fails_the_block_but_its_output_is_usable_downstream(server):
    base, _ = server
    request = wf([
        {"block_type": "http_request", "label": "call", "url": base + "/boom", "continue_on_failure": True},
        code("after", "code = {{ call_output.status_code }}"),
    ])
    result = simulate(request, {"name": "500"})
    assert result["trace"][0]["status"] == "failed"
    assert result["trace"][0]["failure_reason"] == "HTTP 500: {'error': 'boom'}"
    assert result["trace"][1]["output"] == {"code": 500}
    assert result["status"] == "completed"


def test_without_network_an_unstubbed_request_fails_clearly_and_a_stub_still_answers(server):
    base, received = server
    request = wf([{"block_type": "http_request", "label": "call", "url": base + "/never"}])
    before = len(received)
    result = simulate(request, {"name": "offline"}, network=False)
    assert result["status"] == "failed"
    assert "network access is off" in result["failure_reason"]
    assert len(received) == before
    stubbed = simulate(request, {"name": "stubbed", "blocks": {"call": {"output": {"status_code": 204}}}}, network=False)
    assert stubbed["status"] == "completed" and stubbed["outputs"]["call_output"] == {"status_code": 204}


def test_a_jinja_error_in_http_request_is_continued_past_but_not_in_code():
    request = wf([
        {"block_type": "http_request", "label": "call", "url": "https://x.example/{{ nope.attr }}",
         "continue_on_failure": True},
        code("coded", "y = '{{ nope.attr }}'", continue_on_failure=True),
        code("after", "z = 1"),
    ])
    result = simulate(request, {"name": "jinja_fail_cof"})
    assert labels(result) == ["call", "coded"]
    assert result["trace"][0]["failure_reason"].startswith("Failed to format jinja template: Failed to format Jinja style parameter")
    assert result["failure_reason"] == "code block failed. failure reason: Failed to format CodeBlock parameters."


def test_every_local_except_the_parameters_is_the_output():
    request = wf([code("calc", "x = n * 2\nresult = {'x': x}", parameter_keys=["n"])], [param("n", "integer", 5)])
    result = simulate(request, {"name": "locals"})
    assert result["outputs"]["calc_output"] == {"x": 10, "result": {"x": 10}}


def test_code_without_locals_shows_null_on_its_row_but_an_empty_dict_everywhere_else():
    request = wf([code("quiet", "pass"), code("echo", "seen = '{{ quiet_output }}'")])
    result = simulate(request, {"name": "empty"})
    assert result["trace"][0]["output"] is None
    assert result["outputs"]["quiet_output"] == {}
    assert result["outputs"]["echo_output"] == {"seen": "{}"}


def test_a_task_block_without_url_fails_until_a_page_was_opened():
    request = wf([{"block_type": "extraction", "label": "first", "data_extraction_goal": "x", "continue_on_failure": True},
                  {"block_type": "navigation", "label": "open", "url": "https://a.example", "navigation_goal": "go"},
                  {"block_type": "extraction", "label": "then", "data_extraction_goal": "x"}])
    result = simulate(request, {"name": "no url"})
    assert result["trace"][0]["failure_reason"].startswith("block 'first' has no starting URL set.")
    assert [row["status"] for row in result["trace"]] == ["failed", "completed", "completed"]
    after_code = wf([code("c", "x = 1"), {"block_type": "extraction", "label": "e", "data_extraction_goal": "x"}])
    result = simulate(after_code, {"name": "blank page"})
    assert result["failure_reason"] == ("extraction block failed. failure reason: "
                                        "No Valid URL found in the first task of workflow run wr_simulated")


@pytest.mark.parametrize("url,ok", [("x/login", True), ("https://a.example/p q", True), ("ftp://a.example", False),
                                    ("hello world/login", False)])
def test_a_task_url_is_checked_after_rendering(url, ok):
    request = wf([{"block_type": "navigation", "label": "go", "url": url, "navigation_goal": "x"}])
    result = simulate(request, {"name": "url"})
    assert (result["status"] == "completed") is ok
    if not ok:
        assert result["trace"][0]["failure_reason"] == (
            "Failed to format jinja template: Invalid url: malformed. Use an HTTP or HTTPS URL with at most 2083 characters.")


@pytest.mark.parametrize("source", ["import os\nx = 1", "x = (1).__class__", "y = ().__class__.__bases__"])
def test_imports_and_dunder_access_are_refused_before_running(source):
    result = simulate(wf([code("c", source)]), {"name": "insecure"})
    assert result["trace"][0]["failure_reason"] == "Insecure code detected."


def test_json_re_and_datetime_are_there_without_import_and_open_is_not():
    ok = simulate(wf([code("c", "a = json.dumps([1])\nb = bool(re.match('x', 'x'))\nc = datetime.date(2020, 1, 2).isoformat()")]),
                  {"name": "modules"})
    assert ok["outputs"]["c_output"] == {"a": "[1]", "b": True, "c": "2020-01-02"}
    denied = simulate(wf([code("c", "f = open('/etc/hostname')")]), {"name": "open"})
    assert denied["trace"][0]["failure_reason"] == "Failed to execute code block. Reason: NameError: name 'open' is not defined"


def test_a_runaway_code_block_is_stopped_and_the_next_one_still_runs():
    request = wf([code("spin", "while True:\n    pass", continue_on_failure=True), code("after", "ok = 1")])
    simulation = Simulation(request, {"name": "timeout"}, code_time_limit=1.0)
    result = simulation.run()
    assert result["trace"][0]["failure_reason"] == (
        "Failed to execute code block. Reason: TimeoutError: code block exceeded 300 seconds")
    assert result["trace"][1]["output"] == {"ok": 1}


def test_on_block_sees_each_block_start_and_finish_in_order():
    seen = []
    simulate(wf([code("a", "x = 1"), code("b", "y = 2")]), {"name": "events"}, on_block=seen.append)
    assert [(row["label"], row["status"]) for row in seen] == [
        ("a", "running"), ("a", "completed"), ("b", "running"), ("b", "completed")]


def test_v2_defaults_that_form_a_cycle_fail_the_run_before_any_block():
    request = wf([code("a", "x = 1", next_block_label="b"), code("b", "y = 1", next_block_label="a")], version=2)
    result = simulate(request, {"name": "cycle"})
    assert result["status"] == "failed" and result["trace"] == []
    assert result["failure_reason"].startswith("Circular reference detected")


def test_routing_without_a_version_is_stored_as_v2_and_walked_as_a_graph():
    # observed on the real engine: no `version` + next_block_label is saved as version 2, so the
    # run follows the edges (and the sequential defaults), never the list
    request = wf([code("a", "x = 1", next_block_label="c"), code("b", "y = 1"), code("c", "z = 1")])
    assert simulate(request, {"name": "v2"})["failure_reason"].startswith("Disconnected blocks detected")
    request = wf([code("a", "x = 1", next_block_label="c"), code("b", "y = 1"), code("c", "z = 1", next_block_label="b")])
    result = simulate(request, {"name": "cycle"})
    assert result["status"] == "failed" and result["trace"] == []
    assert result["failure_reason"].startswith("Circular reference detected")
    request = wf([code("a", "x = 1", next_block_label="c"), code("c", "z = 1", next_block_label="b"), code("b", "y = 1")])
    assert labels(simulate(request, {"name": "edges"})) == ["a", "c", "b"]
    request = wf([code("a", "x = 1"), code("b", "y = 1")])
    assert labels(simulate(request, {"name": "v1 list"})) == ["a", "b"]


def test_a_declared_jinja_criterion_without_braces_is_decided_as_a_prompt():
    request = wf([
        {"block_type": "conditional", "label": "c", "branch_conditions": [
            {"criteria": {"criteria_type": "jinja2_template", "expression": "n > 1"}, "next_block_label": "yes"},
            {"is_default": True, "next_block_label": "no"}]},
        code("yes", "a = 1"), code("no", "b = 1"),
    ], [param("n", "integer", 5)], version=2)
    unstubbed = simulate(request, {"name": "no stub"})
    assert labels(unstubbed) == ["c", "no"]  # without a stub every prompt criterion is false
    stubbed = simulate(request, {"name": "stub", "prompt_branches": {"c": [True]}})
    assert labels(stubbed) == ["c", "yes"]


@pytest.mark.parametrize("text,expected", [("true", True), ("False", False), ("0", False), ("0.0", False),
                                           ("no", False), ("  ", False), ("none", False), ("2", True),
                                           ("maybe", True)])
def test_branch_results_follow_the_truthy_string_rules(text, expected):
    request = wf([
        {"block_type": "conditional", "label": "c", "branch_conditions": [
            {"criteria": {"expression": "{{ v }}"}, "next_block_label": "yes"},
            {"is_default": True, "next_block_label": "no"}]},
        code("yes", "a = 1"), code("no", "b = 1"),
    ], [param("v", "string", "x")], version=2)
    result = simulate(request, {"name": "truthy", "parameters": {"v": text}})
    assert labels(result)[-1] == ("yes" if expected else "no")


def test_loop_continue_on_failure_keeps_the_run_going_with_the_loop_failed():
    request = wf([
        {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "xs", "continue_on_failure": True,
         "loop_blocks": [code("inv", "r = 1 / {{ current_value }}")]},
        code("tail", "t = 1"),
    ], [param("xs", "json", [1, 0, 2])])
    result = simulate(request, {"name": "loop_fail_cof"})
    assert result["trace"][0]["status"] == "failed"
    assert labels(result) == ["each", "inv", "inv", "tail"]
    assert result["status"] == "completed"


def test_without_flags_a_failing_child_stops_the_loop_and_the_run():
    request = wf([
        {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "xs",
         "loop_blocks": [code("inv", "r = 1 / {{ current_value }}")]},
        code("tail", "t = 1"),
    ], [param("xs", "json", [1, 0, 2])])
    result = simulate(request, {"name": "loop_stop_on_failure"})
    assert labels(result) == ["each", "inv", "inv"]
    assert result["failure_reason"] == ("for_loop block failed. failure reason: Failed to execute code block. "
                                        "Reason: ZeroDivisionError: division by zero")


def test_complete_if_empty_completes_an_empty_loop():
    request = wf([{"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "xs",
                   "complete_if_empty": True, "loop_blocks": [code("c", "x = 1")]}], [param("xs", "json", [])])
    result = simulate(request, {"name": "empty_loop_complete"})
    assert result["status"] == "completed" and result["outputs"]["each_output"] == []


def test_a_list_of_stubs_is_consumed_one_per_execution():
    request = wf([{"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "xs",
                   "loop_blocks": [{"block_type": "text_prompt", "label": "ask", "prompt": "n={{ current_value }}"}]}],
                 [param("xs", "json", [1, 2, 3])])
    result = simulate(request, {"name": "llm list", "llm": {"ask": ["one", "two", "three"]}})
    assert [row["output"] for row in result["trace"][1:]] == [
        {"llm_response": "one"}, {"llm_response": "two"}, {"llm_response": "three"}]
    assert [p["prompt"].split("\n")[0] for p in result["llm_prompts"]] == ["n=1", "n=2", "n=3"]


def test_the_block_reference_variable_merges_across_iterations_and_exposes_extracted_information():
    request = wf([
        {"block_type": "for_loop", "label": "each", "loop_over_parameter_key": "xs",
         "loop_blocks": [code("c", "{{ 'a' if current_index == 0 else 'b' }} = {{ current_value }}")]},
        code("after", "merged = {{ c }}"),
        {"block_type": "extraction", "label": "ext", "url": "https://a.example", "data_extraction_goal": "x"},
        code("read", "out = {{ ext.output }}"),
    ], [param("xs", "json", [1, 2])])
    case = {"name": "refs", "tasks": {"ext": {"status": "completed", "extracted_information": {"p": 1}}}}
    result = simulate(request, case)
    assert result["outputs"]["after_output"] == {"merged": {"a": 1, "b": 2}}
    assert result["outputs"]["read_output"] == {"out": {"p": 1}}
    assert result["outputs"]["extracted_information"] == [{"p": 1}]


def test_runtime_variables_are_in_the_namespace():
    request = wf([code("c", "t = '{{ workflow_title }}'\nd = len('{{ current_date }}')\nb = '{{ browser_session_id }}'")])
    assert simulate(request, {"name": "runtime"})["outputs"]["c_output"] == {"t": "t", "d": 10, "b": ""}


def test_a_bad_case_value_never_raises():
    request = wf([code("c", "x = 1")])
    result = simulate(request, {"name": "odd", "blocks": {"c": "just text"}})
    assert result["status"] == "completed" and result["outputs"]["c_output"] == "just text"


@pytest.mark.parametrize("reason,attempts", [("wrong password", 3), ("blocked by a captcha", 1),
                                             ("Access denied by the site", 1), ("access denied: bad password", 3)])
def test_task_retries_stop_early_on_an_anti_bot_failure(reason, attempts):
    request = wf([{"block_type": "login", "label": "login", "url": "https://a.example", "max_retries": 2}])
    tasks = [{"status": "failed", "failure_reason": f"{reason} #{i}"} for i in range(3)]
    result = simulate(request, {"name": "retries", "tasks": {"login": tasks}})
    assert result["failure_reason"] == f"login block failed. failure reason: {reason} #{attempts - 1}"


def test_a_terminated_task_without_reason_names_its_status():
    request = wf([{"block_type": "navigation", "label": "go", "url": "https://a.example", "navigation_goal": "x"}])
    result = simulate(request, {"name": "t", "tasks": {"go": {"status": "terminated"}}})
    assert result["status"] == "terminated"
    assert result["trace"][0]["failure_reason"] == "Task tsk_simulated finished with status terminated"


def test_a_matched_criterion_is_shown_with_values_substituted_and_the_others_are_not_shown():
    request = wf([
        {"block_type": "conditional", "label": "c", "branch_conditions": [
            {"criteria": {"expression": "{{ which == 'a' }}"}, "next_block_label": "a"},
            {"criteria": {"expression": "{{ which|upper == 'B' }}"}, "next_block_label": "b"}]},
        code("a", "x = 1"), code("b", "y = 1"),
    ], [param("which", "string", "b")], version=2)
    evaluations = simulate(request, {"name": "display"})["trace"][0]["output"]["evaluations"]
    assert "rendered_expression" not in evaluations[0]
    assert evaluations[1]["rendered_expression"] == "\"B\" == 'B'"


def test_a_template_failure_lists_the_keys_the_reference_could_have_used():
    request = wf([code("make", "row = {'id': 1, 'items': 2}"), code("use", "v = {{ make_output.row.nope.deeper }}")])
    output = simulate(request, {"name": "keys"})["trace"][1]["output"]
    assert output["available_keys"][:2] == ["make_output.row.id", 'make_output.row["items"]']
    assert "workflow_title" in output["available_keys"]


def test_prompt_criteria_are_sent_in_the_engine_prompt_with_a_context_snapshot():
    request = wf([
        code("start", "total = 5"),
        {"block_type": "conditional", "label": "c", "branch_conditions": [
            {"criteria": {"criteria_type": "prompt", "expression": "the total is large"}, "next_block_label": "big"},
            {"is_default": True, "next_block_label": "small"}]},
        code("big", "x = 1"), code("small", "y = 1"),
    ], version=2)
    request["workflow_definition"]["blocks"][0]["next_block_label"] = "c"
    output = simulate(request, {"name": "prompt", "prompt_branches": {"c": [True]}})["trace"][1]["output"]
    assert "Condition: the total is large" in output["llm_prompt"]
    assert '"start_output": {"total": 5}' in output["llm_prompt"]
    assert output["llm_response"] == {"evaluations": [{"condition_index": 1, "reasoning": "stub", "result": True}]}
    assert output["branch_taken"] == "big"


def test_a_terminate_block_ends_the_run_even_with_continue_on_failure():
    request = wf([{"block_type": "terminate", "label": "stop", "reason": "done", "continue_on_failure": True},
                  code("after", "x = 1")])
    result = simulate(request, {"name": "terminate cof"})
    assert result["status"] == "terminated" and [r["label"] for r in result["trace"]] == ["stop"]
