"""The simulator's code policy and namespace are the 1.0.56 engine's (no engine needed here).

``tests/data/code_attacks_engine.json`` holds the real engine's answers to every snippet of
``code_attacks.py`` (written by ``python tests/code_attacks.py --update``; ``pytest -m engine
tests/test_engine_code_policy.py`` checks it is still the engine's). Each attack class of the
safe-runs issue also has a test of its own below, so a failure names what broke.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import code_attacks
from wflint.engine import code_policy, simulate

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def golden():
    return code_attacks.golden()


@pytest.fixture(scope="module")
def answers():
    return code_attacks.simulator_answers()


def run(code: str, **params):
    wf = code_attacks.workflow("t", [("c", code)])
    if params:
        wf["workflow_definition"]["parameters"] = [
            {"parameter_type": "workflow", "key": k,
             "workflow_parameter_type": "string" if isinstance(v, str) else "json"} for k, v in params.items()]
        wf["workflow_definition"]["blocks"][0]["parameter_keys"] = list(params)
    result = simulate(wf, {"name": "t", "parameters": params})
    row = result["trace"][0]
    return row["status"], row["output"], row["failure_reason"]


def test_every_snippet_is_answered_as_the_engine_answers_it(golden, answers):
    assert set(answers) == set(golden["answers"])
    differ = {name: (answers[name], golden["answers"][name]) for name in answers if answers[name] != golden["answers"][name]}
    assert differ == {}


def test_every_refusal_gives_the_engines_detail(golden):
    assert code_attacks.simulator_details() == golden["details"]
    assert sum(1 for detail in golden["details"].values() if detail) >= 45  # the corpus really attacks


@pytest.mark.parametrize("code, detail", [
    ("r = str(json.codecs.sys)", "Not allowed to access 'codecs'"),
    ("r = datetime.sys.modules", "Not allowed to access 'modules'"),
    ("r = json.builtins", "Not allowed to access 'builtins'"),
    ("r = re.enum.sys", None),  # no blocked name: the shim itself has no 'enum'
])
def test_attribute_chains_to_sys_are_refused_or_reach_nothing(code, detail):
    assert code_policy.refusal(code) == detail
    status, output, reason = run(code)
    assert status == "failed" and output is None
    if detail:
        assert reason == "Insecure code detected."
    else:
        assert reason == "Failed to execute code block. Reason: AttributeError: 'types.SimpleNamespace' object has no attribute 'enum'"


@pytest.mark.parametrize("code, detail", [
    ("def g():\n    yield 1\nr = g().gi_frame.f_back.f_globals", "Not allowed to access 'f_globals'"),
    ("async def a():\n    yield 1\nr = a().ag_frame.f_globals", "Not allowed to access 'f_globals'"),
    ("async def c():\n    return 1\nr = c().cr_frame", "Not allowed to access 'cr_frame'"),
    ("try:\n    1 / 0\nexcept Exception as e:\n    r = e.__traceback__.tb_frame", "Not allowed to access 'tb_frame'"),
    ("try:\n    1 / 0\nexcept Exception as e:\n    r = e.with_traceback(None).tb_frame", "Not allowed to access 'tb_frame'"),
])
def test_frames_of_generators_coroutines_and_tracebacks_are_refused(code, detail):
    assert code_policy.refusal(code) == detail
    assert run(code)[2] == "Insecure code detected."


@pytest.mark.parametrize("code, detail", [
    ("def f():\n    pass\nmatch f:\n    case object(__globals__=g):\n        r = 1", "Not allowed to access private methods or attributes"),
    ("match 1:\n    case object(f_globals=g):\n        r = 1", "Not allowed to access 'f_globals'"),
    ("match 1:\n    case int(x):\n        r = x", "Not allowed to use positional patterns in match statements"),
])
def test_match_class_patterns_cannot_read_what_attributes_cannot(code, detail):
    assert code_policy.refusal(code) == detail


@pytest.mark.parametrize("code, detail", [
    ("r = '{0.__class__}'.format(1)", "Not allowed to access 'format'"),
    ("r = '{a}'.format_map({'a': 1})", "Not allowed to access 'format_map'"),
    ("f = 'x'.format", "Not allowed to access 'format'"),
])
def test_str_format_field_traversal_is_refused(code, detail):
    assert code_policy.refusal(code) == detail


def test_format_the_builtin_is_simply_missing():
    assert run("r = format(1, 'x')")[2] == "Failed to execute code block. Reason: NameError: name 'format' is not defined"


@pytest.mark.parametrize("code", ["class M(metaclass=object):\n    pass", "class M(foo=1):\n    pass",
                                  "class M(**{}):\n    pass"])
def test_class_keywords_and_metaclasses_are_refused(code):
    assert code_policy.refusal(code) == "Not allowed to use metaclasses or keywords in class definitions"


@pytest.mark.parametrize("code", ["r = type.__subclasses__(object)", "r = ().__class__.__bases__[0]",
                                  "r = __builtins__", "r = __import__('os')", "r = print.__self__",
                                  "r = (lambda a=json: a).__defaults__", "r = __capture_locals()",
                                  "r = ().\N{FULLWIDTH LOW LINE}_class__"])
def test_private_names_are_refused_however_they_are_spelt(code):
    try:
        refused = code_policy.refusal(code)
    except SyntaxError:
        refused = "does not parse"
    assert refused in ("Not allowed to access private methods or attributes", "does not parse")
    assert run(code)[0] == "failed"


@pytest.mark.parametrize("name", ["getattr", "vars", "globals", "locals", "eval", "exec", "compile", "open",
                                  "type", "super", "memoryview", "breakpoint", "input"])
def test_denied_builtins_are_not_defined(name):
    assert run(f"r = {name}")[2] == f"Failed to execute code block. Reason: NameError: name '{name}' is not defined"


@pytest.mark.parametrize("code", ["import os", "from os import path", "def f():\n    import os"])
def test_imports_are_refused_anywhere(code):
    assert code_policy.refusal(code) == "Not allowed to import modules"


def test_the_modules_are_subsets_as_the_engine_gives_them():
    assert run("r = sorted(n for n in dir(json) if not n.startswith('_'))")[1] == {"r": ["dumps", "loads"]}
    assert run("r = html.escape('<b>')")[1] == {"r": "&lt;b&gt;"}
    assert run("await asyncio.sleep(0)\nr = 1")[1] == {"r": 1}
    assert run("r = json.JSONDecoder")[2].endswith("AttributeError: 'types.SimpleNamespace' object has no attribute 'JSONDecoder'")
    assert run("r = datetime.datetime.strptime('2024-03-01', '%Y-%m-%d').isoformat()")[1] == {"r": "2024-03-01T00:00:00"}


def test_what_one_execution_does_to_its_shims_dies_with_it(golden):
    assert golden["answers"]["sequence"]["rows"][1][2] == {"r": 1}
    first = run("json.loads = lambda s: 'mine'\nr = json.loads('1')")
    assert first[1] == {"r": "mine"}
    assert run("r = json.loads('1')")[1] == {"r": 1}


@pytest.mark.parametrize("code, reason", [
    ("raise ErrorCode('', 'why')", "ValueError: ErrorCode code must be a trimmed, non-empty string of at most 128 characters"),
    ("raise ErrorCode('CODE', 'why ')", "ValueError: ErrorCode reasoning must be a trimmed, non-empty string of at most 2000 characters"),
    ("E = ErrorCode\nr = 1", "SyntaxError: ErrorCode aliases are not allowed"),
    ("e = ErrorCode('A', 'b')", "SyntaxError: ErrorCode must be constructed directly in a raise statement"),
    ("raise ErrorCode('A', reasoning='b')", "SyntaxError: ErrorCode requires exactly two positional arguments"),
])
def test_error_code_arguments_are_checked_as_the_engine_checks_them(code, reason):
    assert run(code)[2] == f"Failed to execute code block. Reason: {reason}"


def test_a_refused_error_code_runs_nothing_and_the_block_runs_once():
    wf = code_attacks.workflow("t", [("c", "print('ran')\nraise ErrorCode('A')")])
    from wflint.engine.runner import Simulation

    sim = Simulation(wf, {"name": "t"})
    result = sim.run()
    assert [row["label"] for row in result["trace"]] == ["c"]
    assert "printed" not in sim.inputs[0]


def test_the_worker_hash_seed_applies(tmp_path):
    from wflint.engine.code_runner import CodeRunner

    seen = set()
    for _ in range(2):
        with CodeRunner() as runner:
            seen.add(json.dumps(runner.run("h = hash('abc')", {}, network=False, time_limit=30)))
    assert len(seen) == 1 and '"ok": true' in seen.pop()


def test_simulate_no_network_escape_does_not_complete_with_sys_in_its_output(tmp_path):
    escape = tmp_path / "escape.json"
    escape.write_text(json.dumps({"title": "escape", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": "c", "code": "r = str(json.codecs.sys)"}]}}))
    done = subprocess.run([sys.executable, "-m", "wflint", "simulate", "--no-network", "--format", "json", str(escape)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert "module 'sys'" not in done.stdout and "built-in" not in done.stdout
    out = json.loads(done.stdout)
    text = json.dumps(out)
    assert "Insecure code detected." in text and '"completed"' not in text.replace('"status": "completed"', "")
    assert done.returncode in (0, 1)


def test_parameters_shadow_as_the_engine_lets_them():
    # ``generate_async_user_function``: a parameter named like a late safe global (html) shadows
    # it through the wrapper's arguments; one named like an early one (json) does not
    assert run("r = html", html="mine")[1] == {"r": "mine"}
    assert run("r = json.dumps(1)", json="mine")[1] == {"r": "1"}
    status, output, reason = run("r = 1", set_dialog_policy="x")
    assert reason == ("Failed to execute code block. Reason: ValueError: 'set_dialog_policy' is a reserved "
                      "CodeBlock builtin and cannot be used as a parameter name.")


def test_asyncio_sleep_returns_at_once_and_fails_as_asyncio_does():
    import time

    started = time.monotonic()
    assert run("r = await asyncio.sleep(30, 'done')\nawait sleep(30)")[1] == {"r": "done"}
    assert time.monotonic() - started < 10
    assert run("await asyncio.sleep('x')")[2] == (
        "Failed to execute code block. Reason: TypeError: '<=' not supported between instances of 'str' and 'int'")


def test_an_output_over_100_mb_is_stored_as_the_services_marker():
    status, output, _ = run("r = 'x' * (101 * 1024 * 1024)")
    assert status == "completed"
    assert output == {"truncated": True, "reason": "exceeded_max_jsonb_value_size",
                      "original_size_bytes": 101 * 1024 * 1024 + len('{"r": ""}'), "limit_bytes": 100 * 1024 * 1024}
