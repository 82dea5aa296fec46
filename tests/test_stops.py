"""Everything a run does stops (issue 29): templates that would never finish compiling or
rendering, a run's deadline and cancel, the mock's fair run queue and its restarts.

The hangs are real (a template loop of 10**10 iterations, a power of a billion digits); each
test gives the stop a deadline far above what it needs and asserts the hang was broken."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from jinja2.sandbox import SandboxedEnvironment

from wflint.api import check_text
from wflint.checks.jinja_bounds import BoundedEnvironment
from wflint.engine import simulate, stops, templates
from wflint.server.protocol.limits import ServerLimits
from wflint.server.runs.queue import FairQueue
from wflint.server.testing import make_client, make_state

FOREVER = "{% set r = range(100000) %}{% for a in r %}{% for b in r %}{% endfor %}{% endfor %}"
POWER = "x = {{ 9**999999999 }}\n"
A = {"x-api-key": "key-a"}
B = {"x-api-key": "key-b"}


def _code_workflow(code: str) -> str:
    indented = "\n".join("        " + line for line in code.splitlines())
    return f"title: t\nworkflow_definition:\n  parameters: []\n  blocks:\n    - block_type: code\n      label: c\n      code: |\n{indented}\n"


# ---------------------------------------------------------------- templates: compile and render


@pytest.mark.parametrize("code, says", [
    (POWER, "9 ** 999999999 is a number of about 954,242,509 digits"),
    ("x = '{{ 'a' * 1500000000 }}'\n", "repeating a str of length 1 1,500,000,000 times"),
    ("x = {{ (2 ** 10 + 1) ** 999999999 }}\n", "1025 ** 999999999"),
])
def test_check_reports_a_constant_the_service_would_never_finish_compiling(code, says):
    # before: Jinja folded the constant while wflint compiled the code block, and check hung
    diagnostics = check_text(_code_workflow(code), "w.yaml")
    found = [d for d in diagnostics if d.code == "WF401"]
    assert len(found) == 1 and says in found[0].message, [d.message for d in diagnostics]
    assert "save request never answers" in found[0].message


def test_check_of_a_costly_constant_is_fast_from_the_command_line(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(_code_workflow(POWER))
    done = subprocess.run([sys.executable, "-m", "wflint", "check", str(path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "WF401" in done.stdout


def test_small_constants_are_not_reported():
    diagnostics = check_text(_code_workflow("x = {{ 2 ** 64 }} + {{ 'ab' * 3 }}\n"), "w.yaml")
    assert [d for d in diagnostics if d.code == "WF401"] == []


@pytest.mark.parametrize("text", [
    "{{ 2 ** 64 }}", "{{ 'ab' * 3 }}", "{{ [1, 2] * 2 }}", "{{ '%05d' % 42 }}", "{{ 'a' ~ 1 ~ none }}",
    "{{ 1 + 2 * 3 - 4 / 5 }}", "{{ 10 // 3 }}{{ -2 ** 2 }}", "{{ 'x' + 'y' }}", "{{ [1] + [2] }}",
    "{{ 'abc' | upper | center(9) }}", "{% if 1 %}a{% else %}b{% endif %}", "{{ 1 / 0 if false else 7 }}",
    "{{ 'a\nb' | indent(2, true) }}", "{{ '%s-%d' | format('x', 3) }}",
    "{{ 'aXa' | replace('a', 'bb') }}", "{{ 'aaa' | replace('a', 'b', 2) }}", "{{ 'ab' | replace('', '-') }}",
    "{{ {'a': 1} }}", "{{ (1, 2) }}", "{{ 3.0 ** 2 }}", "{{ 2 ** -1 }}", "{{ true * 3 }}",
])
def test_the_unfolded_environment_renders_what_the_engine_renders(text):
    expected = SandboxedEnvironment().from_string(text).render()
    assert BoundedEnvironment().from_string(text).render() == expected


def test_a_failing_constant_fails_the_same_way():
    for env in (SandboxedEnvironment(), BoundedEnvironment()):
        with pytest.raises(ZeroDivisionError):
            env.from_string("{{ 1 / 0 }}").render()


@pytest.mark.parametrize("text, says", [
    ("{{ 9**999999999 }}", "954,242,509 digits"),
    ("{{ 'a' * 1500000000 }}", "1,500,000,000 items"),
    ("{% set s = 'a' * 10000000 %}{{ s ~ s }}", "'~' makes a string of 20,000,000"),
    ("{% set s = 'a' * 10000000 %}{{ s + s }}", "joining makes 20,000,000"),
    ("{{ '%0999999999d' % 1 }}", "asks for 999,999,999 characters"),
    ("{% for i in range(20) %}{{ 'a' * 1000000 }}{% endfor %}", "its output passes"),
    ("{{ 'a' | center(2000000000) }}", "'center' makes 2,000,000,000 characters"),
    ("{{ 'x\ny' | indent(999999999, true) }}", "'indent' makes"),
    ("{{ 'x' | indent(999999999) }}", "'indent' makes"),  # Jinja builds the padding first
    ("{{ '%0999999999d' | format(1) }}", "asks for 999,999,999 characters"),
    ("{{ ('a' * 1000000) | replace('a', 'bbbbbbbbbbbbbbbbbbbb') }}", "'replace' makes 20,000,000 characters"),
])
def test_rendering_refuses_what_would_not_finish(text, says):
    with pytest.raises(templates.TemplateStopped) as stopped:
        templates.render(text, {})
    assert says in str(stopped.value) and str(stopped.value).startswith("wflint stopped this template")


def test_a_template_loop_is_stopped_by_the_render_budget(monkeypatch):
    monkeypatch.setattr(templates, "RENDER_SECONDS", 1.0)
    began = time.monotonic()
    with pytest.raises(templates.TemplateStopped, match="after 1 s"):
        templates.render(FOREVER, {})  # 10**10 iterations: hours without the budget
    assert time.monotonic() - began < 60


def test_the_watchdog_leaves_nothing_behind_after_a_fast_render():
    for _ in range(200):
        assert templates.render("{{ x }}", {"x": 1}) == "1"
    time.sleep(0.05)
    assert sum(1 for _ in range(1000)) == 1000  # no stray interrupt lands later


def test_a_simulated_code_block_with_a_costly_template_fails_with_the_reason():
    request = {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "c", "code": POWER}]}}
    result = simulate(request, {"name": "x"})
    assert result["status"] == "failed"
    row = result["trace"][0]
    assert row["status"] == "failed" and row["failure_reason"].startswith("wflint stopped this template: 9 ** ")
    assert "954,242,509 digits" in result["failure_reason"]


# ---------------------------------------------------------------- a run's deadline and cancel


def _terminate_request(reason: str) -> dict:
    return {"title": "t", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "terminate", "label": "stop", "reason": reason},
        {"block_type": "code", "label": "after", "code": "x = 1"}], "finally_block_label": "after"}}


def test_a_run_stops_at_its_deadline(monkeypatch):
    monkeypatch.setattr(templates, "RENDER_SECONDS", 600.0)
    token = stops.CURRENT.set(stops.StopSignal(1.0, "the run's deadline"))
    try:
        began = time.monotonic()
        result = simulate(_terminate_request(FOREVER), {"name": "x"})
    finally:
        stops.CURRENT.reset(token)
    assert time.monotonic() - began < 120
    assert result["status"] == "timed_out" and result["failure_reason"] == "the run's deadline"
    # the block open at the deadline ends with the run (on a slow machine the deadline may even
    # pass before it starts); nothing runs after it, not the finally block either
    assert [(r["label"], r["status"]) for r in result["trace"]] in ([("stop", "timed_out")], [])


def _wait_for(predicate, seconds=60.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.02)


def _start(client, request, headers=A):
    saved = client.post("/v1/agents", json={"json_definition": request}, headers=headers)
    assert saved.status_code == 200, saved.text
    started = client.post("/v1/run/agents", json={"agent_id": saved.json()["workflow_permanent_id"]}, headers=headers)
    assert started.status_code == 200, started.text
    return started.json()["run_id"]


def test_cancel_stops_the_run_s_work_and_healthz_answers_meanwhile(monkeypatch):
    monkeypatch.setattr(templates, "RENDER_SECONDS", 600.0)
    client = make_client()
    run_id = _start(client, _terminate_request(FOREVER))
    _wait_for(lambda: client.get(f"/v1/runs/{run_id}", headers=A).json()["status"] == "running")
    time.sleep(0.2)  # inside the template loop by now
    assert client.get("/healthz").status_code == 200
    assert client.post(f"/v1/runs/{run_id}/cancel", headers=A).status_code == 200
    worker = client.app.state.wflint.run_worker
    assert worker.wait(run_id, 60)  # without the interrupt: 600 s (the budget), or hours
    assert worker.pending() == 0
    assert client.get(f"/v1/runs/{run_id}", headers=A).json()["status"] == "canceled"


def test_a_mock_run_times_out_at_the_run_seconds_limit(monkeypatch):
    monkeypatch.setattr(templates, "RENDER_SECONDS", 600.0)
    client = make_client(make_state(limits=ServerLimits(run_seconds=1.0)))
    run_id = _start(client, _terminate_request(FOREVER))
    assert client.app.state.wflint.run_worker.wait(run_id, 120)
    run = client.get(f"/v1/runs/{run_id}", headers=A).json()
    assert run["status"] == "timed_out"
    assert "'run-seconds' limit (1 s" in run["failure_reason"]


def test_the_service_s_own_deadline_names_its_minutes():
    from wflint.server.runs.worker import RunWorker

    class State:
        class config:
            limits = ServerLimits()

        @staticmethod
        def now():
            return "2026-01-01T00:00:30"

    signal = RunWorker._signal(type("W", (), {"state": State})(), {"max_elapsed_time_minutes": 1,
                                                                   "first_started_at": "2026-01-01T00:00:00"})
    assert signal.deadline_reason == "Workflow run exceeded max elapsed runtime limit of 1 minute."
    assert 0 < signal.remaining() <= 30


# ---------------------------------------------------------------- the queue and restarts


def test_the_fair_queue_serves_every_organization_in_turn():
    queue = FairQueue(share=3)
    for i in range(10):
        queue.put("a", f"a{i}")
    queue.put("b", "b0")
    taken = [queue.take() for _ in range(3)]
    assert taken == [("a", "a0"), ("b", "b0"), ("a", "a1")]
    queue.put("c", "c0")
    assert queue.take() == ("c", "c0")  # a has 2 running, c none


def test_one_organization_never_holds_every_worker():
    queue = FairQueue(share=2)
    for i in range(5):
        queue.put("a", f"a{i}")
    assert [queue.take() for _ in range(2)] == [("a", "a0"), ("a", "a1")]
    queue.put("b", "b0")
    assert queue.take() == ("b", "b0")  # a is at its share: b starts at once
    queue.done("a")
    assert queue.take() == ("a", "a2")


def test_a_run_that_keeps_stopping_the_process_is_not_started_again(tmp_path):
    db = str(tmp_path / "m.sqlite")
    client = make_client(make_state(db_path=db))
    run_id = _start(client, _terminate_request("done"))
    assert client.app.state.wflint.run_worker.wait(run_id, 60)
    runs = client.app.state.wflint.runs
    runs.update(run_id, {"status": "running", "starts": 3, "finished_at": None})
    again = make_client(make_state(db_path=db))
    assert again.app.state.wflint.run_worker.wait(run_id, 60)
    run = again.get(f"/v1/runs/{run_id}", headers=A).json()
    assert run["status"] == "failed" and "stopped 3 times while this run was executing" in run["failure_reason"]


def test_the_language_server_reports_a_costly_constant_and_keeps_answering(tmp_path):
    pytest.importorskip("pygls")
    from test_hostile_lsp import Raw

    server = Raw()
    try:
        server.initialize()
        uri = (tmp_path / "flow.yaml").as_uri()
        server.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": uri, "languageId": "yaml", "version": 1, "text": _code_workflow(POWER)}}})
        deadline = time.monotonic() + 120  # it used to hang for good here
        while True:
            message = server.messages.get(timeout=max(deadline - time.monotonic(), 0.1))
            assert message is not None, "the server closed its output"
            if message.get("method") == "textDocument/publishDiagnostics" and message["params"]["uri"] == uri \
                    and message["params"]["diagnostics"]:
                break
        codes = [d.get("code") for d in message["params"]["diagnostics"]]
        assert "WF401" in codes, message
        server.send({"id": 9, "method": "shutdown"})
        assert server.answer(9)["result"] is None
    finally:
        server.close()


def test_healthz_and_sigterm_answer_while_every_run_worker_renders_a_loop():
    """The mock process with its four run workers inside template loops: /healthz answers and
    SIGTERM stops it (before: a folded power held the interpreter, nothing answered)."""
    import signal

    import httpx

    from test_server_under_attack import _start as start_server

    proc, base = start_server()
    try:
        with httpx.Client(base_url=base, headers={"x-api-key": "k"}, timeout=60) as c:
            key = {"x-api-key": "k"}
            # six blocks that each render for the whole 10 s budget: a run is busy for a minute
            slow = {"title": "slow", "workflow_definition": {"parameters": [], "blocks": [
                {"block_type": "text_prompt", "label": f"p{i}", "prompt": FOREVER, "continue_on_failure": True}
                for i in range(6)]}}
            run_ids = [_start(c, _terminate_request("{{ 9**999999999 }}" + FOREVER), key)]
            run_ids += [_start(c, slow, key) for _ in range(4)]
            _wait_for(lambda: sum(c.get(f"/v1/runs/{r}").json()["status"] == "running" for r in run_ids) >= 2)
        health = []
        for _ in range(3):
            began = time.monotonic()
            assert httpx.get(base + "/healthz", timeout=30).status_code == 200
            health.append(time.monotonic() - began)
        began = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        assert max(health) < 10 and time.monotonic() - began < 30
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.parametrize("code, says", [
    ("x = '{{ 'a' | center(2000000000) }}'\n", "'center' makes 2,000,000,000 characters"),
    ("x = '{{ ('ab' * 5000000) | replace('a', 'aaaa') }}'\n", "'replace' makes"),
])
def test_check_reports_a_widening_filter_the_service_would_fold(code, says):
    found = [d for d in check_text(_code_workflow(code), "w.yaml") if d.code == "WF401"]
    assert len(found) == 1 and says in found[0].message


def test_check_leaves_filters_on_values_alone():
    code = "x = '{{ name | center(2000000000) }}'\ny = '{{ 'ab' | center(9) }}'\n"
    assert [d for d in check_text(_code_workflow(code), "w.yaml") if d.code == "WF401"] == []
