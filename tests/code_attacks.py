"""Code blocks that try to leave the engine's code policy, and ordinary code that probes the
namespace it gives: each run on the real 1.0.56 engine and on the simulator
(``test_engine_code_policy.py``), and against the simulator alone (``test_code_policy.py``).

``ATTACKS`` maps a name to the code; each class of the safe-runs issue has several entries
(attribute chains, generator and coroutine frames, match class patterns, str.format fields,
class keywords, subclass walks, builtins reached by other paths, tracebacks, closures and
defaults, decorators, walrus, identifiers the parser normalises) and ``NAMESPACE`` the
ordinary uses whose answer must be the engine's.
"""

ATTACKS: dict[str, str] = {
    # attribute chains with no import and no dunder
    "json_codecs_sys": "r = str(json.codecs.sys)",
    "json_codecs_sys_modules": "r = json.codecs.sys.modules['os'].environ",
    "datetime_sys": "r = datetime.sys.modules",
    "datetime_module_sys": "r = datetime.datetime.sys",
    "re_sre": "r = re.sre_compile",
    "re_enum_sys": "r = re.enum.sys",
    "json_decoder_scanner": "r = json.decoder.scanner",
    "asyncio_base_events": "r = asyncio.base_events.os",
    "asyncio_sleep_globals": "r = asyncio.sleep.__globals__",
    "html_escape_globals": "r = html.escape.__globals__['__builtins__']",
    "json_loads_globals": "r = json.loads.__globals__['codecs']",
    "shim_builtins_attr": "r = json.builtins",
    "print_self": "r = print.__self__",
    "sleep_modules": "r = sleep.modules",
    # generator, coroutine and async generator frames
    "gen_gi_frame": "def g():\n    yield 1\nr = g().gi_frame.f_back.f_globals",
    "genexp_gi_frame": "r = (i for i in range(3)).gi_frame",
    "gen_gi_code": "def g():\n    yield 1\nr = g().gi_code",
    "coro_cr_frame": "async def c():\n    return 1\nx = c()\nr = x.cr_frame",
    "frame_f_locals": "def g():\n    yield 1\nr = g().gi_frame.f_locals",
    "frame_f_builtins": "def g():\n    yield 1\nf = g()\nr = f.gi_frame.f_builtins",
    "agen_frame_globals": "async def a():\n    yield 1\nr = a().ag_frame.f_globals",
    "agen_frame_back": "async def a():\n    yield 1\nf = a().ag_frame\nr = f is None",
    # match class patterns read attributes without an Attribute node
    "match_globals": "def f():\n    pass\nmatch f:\n    case object(__globals__=g):\n        r = 1",
    "match_f_globals": "match 1:\n    case object(f_globals=g):\n        r = 1",
    "match_modules": "match json:\n    case object(codecs=c):\n        r = c",
    "match_positional": "match 1:\n    case int(x):\n        r = x",
    "match_private": "match 1:\n    case object(_x=y):\n        r = y",
    "match_plain": "match {'a': 1}:\n    case {'a': v}:\n        r = v",
    # str.format field traversal
    "format_field_class": "r = '{0.__class__}'.format(1)",
    "format_field_globals": "r = '{0.__globals__[os]}'.format(print)",
    "format_map": "r = '{a}'.format_map({'a': 1})",
    "format_builtin": "r = format(1, 'x')",
    "format_method_value": "f = 'x'.format",
    "fstring_dunder": "x = 1\nr = f'{x.__class__}'",
    "fstring_plain": "x = 3\nr = f'{x:>4}|{x!r}'",
    "percent_format": "r = '%s-%d' % ('a', 2)",
    # class keywords and metaclasses
    "class_metaclass": "class M(metaclass=object):\n    pass",
    "class_keyword": "class M(foo=1):\n    pass",
    "class_kwargs": "class M(**{}):\n    pass",
    "class_plain": "class Box:\n    def __init__(self, v):\n        self.v = v\nb = Box(3)\nr = b.v",
    "class_instance_out": "class Box:\n    pass\nb = Box()",
    "class_init_subclass": "class A:\n    def __init_subclass__(cls):\n        pass\nclass B(A):\n    pass\nr = 1",
    "class_getattr_def": "class A:\n    def __getattr__(self, n):\n        return n\nr = A().anything",
    # subclass walks and types
    "type_subclasses": "r = type.__subclasses__(object)",
    "object_subclasses": "r = object.__subclasses__()",
    "tuple_class_bases": "r = ().__class__.__bases__[0]",
    "mro_call": "r = str.mro()",
    "type_builtin": "r = type(1)",
    "super_builtin": "r = super()",
    "isinstance_ok": "r = isinstance(1, int) and issubclass(bool, int)",
    # builtins by other paths
    "dunder_builtins_name": "r = __builtins__",
    "dunder_import": "r = __import__('os')",
    "getattr_builtin": "r = getattr(json, 'codecs')",
    "vars_builtin": "r = vars()",
    "globals_builtin": "r = globals()",
    "locals_builtin": "r = locals()",
    "eval_builtin": "r = eval('1')",
    "exec_builtin": "exec('x = 1')",
    "compile_builtin": "r = compile('1', 'x', 'eval')",
    "open_builtin": "r = open('/etc/passwd').read()",
    "input_builtin": "r = input()",
    "breakpoint_builtin": "breakpoint()",
    "memoryview_builtin": "r = memoryview(b'x')",
    "exit_builtin": "exit()",
    "system_exit": "raise SystemExit(1)",
    "keyboard_interrupt": "raise KeyboardInterrupt()",
    "base_exception": "raise BaseException('x')",
    "staticmethod_decorator": "class A:\n    @staticmethod\n    def f():\n        return 1\nr = A.f()",
    "property_builtin": "r = property",
    "capture_locals": "r = __capture_locals()",
    "param_defaults": "r = __param_defaults",
    "dir_shim": "r = sorted(n for n in dir(json) if not n.startswith('_'))",
    "dir_datetime": "r = sorted(n for n in dir(datetime) if not n.startswith('_'))",
    "dir_locals": "a = 1\nr = dir()",
    # exceptions and their tracebacks
    "traceback_frame": "try:\n    1 / 0\nexcept Exception as e:\n    r = e.__traceback__.tb_frame",
    "tb_frame_attr": "try:\n    1 / 0\nexcept Exception as e:\n    t = e.with_traceback(None)\n    r = t.tb_frame",
    "tb_next": "try:\n    1 / 0\nexcept Exception as e:\n    r = e.tb_next",
    "exception_args": "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    r = str(e)",
    "exception_context": "try:\n    1 / 0\nexcept Exception as e:\n    r = e.__context__",
    # closures, defaults, code objects
    "closure": "def f():\n    x = 1\n    def g():\n        return x\n    return g\nr = f().__closure__",
    "lambda_defaults": "r = (lambda a=json: a).__defaults__",
    "func_code": "def f():\n    pass\nr = f.__code__",
    "co_consts": "def f():\n    return 1\nc = f\nr = c.co_consts",
    "func_globals_attr": "def f():\n    pass\nr = f.func_globals",
    "lambda_default_shim": "f = lambda a=json: a.dumps([1])\nr = f()",
    # decorators and walrus
    "decorator_plain": "def twice(fn):\n    return lambda v: fn(fn(v))\n@twice\ndef inc(v):\n    return v + 1\nr = inc(1)",
    "walrus": "r = [y := 5, y ** 2]",
    "walrus_comprehension": "r = [(z := i) for i in range(3)]",
    # identifiers the parser normalises (NFKC)
    "nfkc_attribute": "r = json.\uff43\uff4f\uff44\uff45\uff43\uff53",
    "nfkc_dunder": "r = ().\uff3f\uff3fclass\uff3f\uff3f",
    # imports of every form
    "import_os": "import os",
    "import_from": "from os import path",
    "import_star": "from os import *",
    "import_relative": "from . import x",
    "import_in_function": "def f():\n    import os\nr = 1",
    # shims are subsets and fresh per execution
    "json_jsondecoder": "r = json.JSONDecoder",
    "re_pattern_type": "r = re.Pattern",
    "datetime_time": "r = datetime.time",
    "asyncio_loop": "r = asyncio.get_event_loop()",
    "html_unescape": "r = html.unescape('&lt;')",
    "shim_overwrite": "json.loads = lambda s: 'mine'\nr = json.loads('1')",
    "shim_overwrite_next": "r = json.loads('1')",
    # ErrorCode's own checks
    "errorcode_empty": "raise ErrorCode('', 'why')",
    "errorcode_untrimmed": "raise ErrorCode('CODE', 'why ')",
    "errorcode_nonstring": "raise ErrorCode('CODE', 3)",
    "errorcode_long": "raise ErrorCode('C' * 129, 'why')",
    "errorcode_shadowed": "ErrorCode = ValueError\nraise ErrorCode('x')",
    "errorcode_alias": "E = ErrorCode\nr = 1",
    "errorcode_not_raised": "e = ErrorCode('A', 'b')",
    "errorcode_one_arg": "raise ErrorCode('A')",
    "errorcode_keyword": "raise ErrorCode('A', reasoning='b')",
    "errorcode_nonliteral": "c = 'A'\nraise ErrorCode(c, 'b')",
    "errorcode_undeclared": "raise ErrorCode('UNDECLARED', 'b')",
}

#: ordinary code: the namespace the engine gives, answered as it answers
NAMESPACE: dict[str, str] = {
    "json_roundtrip": "r = json.loads(json.dumps({'a': [1, 2]}))",
    "re_calls": "m = re.match(r'(\\d+)', '42x')\nr = [m.group(1), re.findall('a', 'banana'), re.sub('a', 'o', 'aa'), re.I == re.IGNORECASE]",
    "re_compile_attrs": "p = re.compile('b+', re.I)\nr = [p.pattern, p.flags & 2 == 2, p.split('aBbc')]",
    "html_escape": "r = html.escape('<a href=\"x\">')",
    "asyncio_sleep": "await asyncio.sleep(0)\nawait sleep(0)\nr = 'slept'",
    "datetime_fixed": "d = datetime.datetime(2024, 2, 29, 13, 5)\nr = [d.strftime('%Y-%m-%d %H:%M'), d.isoformat(), (d + datetime.timedelta(days=1)).date().isoformat()]",
    "datetime_strptime": "r = datetime.datetime.strptime('2024-03-01', '%Y-%m-%d').isoformat()",
    "datetime_timezone": "r = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc).isoformat()",
    "datetime_utc": "r = datetime.datetime(2024, 1, 1, tzinfo=datetime.UTC).utcoffset().total_seconds()",
    "date_output": "d = datetime.date(2024, 5, 6)",
    "datetime_output": "d = datetime.datetime(2024, 5, 6, 7, 8)",
    "datetime_repr": "r = repr(datetime.date(2024, 5, 6))",
    "datetime_type_name": "r = str(type(datetime.datetime(2024, 1, 1)))",
    "date_min": "r = datetime.date.min.strftime('%Y')",
    "timetuple": "r = list(datetime.date(2024, 5, 6).timetuple())[:3]",
    "builtins_work": "r = [len('abc'), sorted([3, 1]), sum(range(4)), min(2, 1), abs(-1), round(2.5), list(zip('ab', [1, 2])), any([0, 1]), hex(255), chr(65), ord('A'), divmod(7, 2), repr('x'), bool(''), float('1.5'), int('7'), pow(2, 10)]",
    "nan_out": "r = json.dumps(float('nan'))",
    "print_and_locals": "print('hello', 1)\na = 1\nb = a + 1",
    "no_locals": "pass",
    "function_out": "def f():\n    return 1",
    "set_output": "r = sorted({3, 1, 2})",
    "tuple_output": "r = (1, 'a')",
    "bytes_output": "r = b'abc'",
    "del_shim": "del json",
    "rebind_shim": "json = 5",
    "exception_raised": "raise ValueError('bad value')",
    "key_error": "r = {}['missing']",
    "zero_division": "r = 1 / 0",
    "name_error": "r = undefined_name",
    "syntax_error": "r = (",
    "attribute_error_shim": "r = json.load",
    "page_calls": "await page.goto('https://example.com')\nr = 'done'",
    "nonlocal_and_global": "def f():\n    global g\n    g = 1\nf()\nr = 2",
    "class_name_module": "class A:\n    pass\nr = str(A)",
    "indented_code": "    x = 1\n    y = x + 1",
}

# --------------------------------------------------------------------------- both sides' answers

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "data" / "code_attacks_engine.json"
ALL: dict[str, str] = {**ATTACKS, **NAMESPACE}
#: executions in one run, in order: what one does to its shims must not reach the next
SEQUENCE = ("shim_overwrite", "shim_overwrite_next")

_DETAILS = """
import json, sys
from skyvern.forge.sdk.workflow.code_block_safety import is_safe_code
out = {}
for name, code in json.load(sys.stdin).items():
    try:
        is_safe_code(code)
        out[name] = None
    except SyntaxError:
        out[name] = None
    except Exception as exc:
        out[name] = str(exc)
print(json.dumps(out))
"""


def workflow(name: str, labels_codes: list[tuple[str, str]]) -> dict:
    return {"title": f"attack {name}", "workflow_definition": {"parameters": [], "blocks": [
        {"block_type": "code", "label": label, "code": code} for label, code in labels_codes]}}


def cases() -> list[dict]:
    out = [{"name": name, "workflow": workflow(name, [("c", code)]), "case": {}} for name, code in ALL.items()]
    out.append({"name": "sequence", "workflow": workflow("sequence", [(n, ALL[n]) for n in SEQUENCE]), "case": {}})
    return out


def answer(trace: dict) -> dict:
    """What is compared: the run's status and reason, and each block row's."""
    from engine_diff import normalise

    return normalise({"status": trace.get("status"), "failure_reason": trace.get("failure_reason"),
                      "rows": [[row.get("label"), row.get("status"), row.get("output"), row.get("failure_reason")]
                               for row in trace.get("trace") or []]})


def simulator_answers() -> dict[str, dict]:
    from wflint.engine import simulate

    return {case["name"]: answer(simulate(case["workflow"], {"name": case["name"]})) for case in cases()}


def simulator_details() -> dict[str, str | None]:
    from wflint.engine import code_policy

    out: dict[str, str | None] = {}
    for name, code in ALL.items():
        try:
            out[name] = code_policy.refusal(code)
        except SyntaxError:
            out[name] = None
    return out


def _oracle():
    sys.path.insert(0, str(ROOT / "tools" / "engine"))
    import oracle

    return oracle


def engine_details() -> dict[str, str | None]:
    """``is_safe_code``'s detail message for each snippet, from the release's own module."""
    oracle = _oracle()
    venvs = sys.modules["venvs"]
    done = subprocess.run([str(venvs.python_of(oracle.RELEASE)), "-c", _DETAILS], input=json.dumps(ALL),
                          env=oracle.engine_env(), capture_output=True, text=True, timeout=600, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    # the engine's exception adds its prefix; the detail is what follows it
    return {name: (text.removeprefix("Insecure code detected. Reason: ") if text else None)
            for name, text in found.items()}


def engine_answers() -> dict[str, dict]:
    oracle = _oracle()
    return {trace["name"]: answer(trace) for trace in oracle.run_real(cases(), stderr=sys.stderr)}


def golden() -> dict:
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def main() -> None:
    """``python tests/code_attacks.py --update``: ask the real engine and write the golden file
    (a person then reads what changed before committing it)."""
    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python tests/code_attacks.py --update")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    data = {"details": engine_details(), "answers": engine_answers()}
    GOLDEN.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
