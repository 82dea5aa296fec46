"""Every linter reproducer of the hostile-input report, as a test: a limit ends in a clear
WF007 before the work is done, crashes are findings, costs stay linear, output stays safe."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.api import check_bytes, check_text
from wflint.cli import main
from wflint.project.config import Config
from wflint.document.limits import DEFAULT, Limits, code_depth, template_depth
from wflint.report.formats import FORMATS, full
from wflint.rules import registry
from wflint.workflow import sanitizer

ROOT = Path(__file__).resolve().parent.parent


def request(blocks, params=None, **definition) -> dict:
    return {"title": "t", "workflow_definition": {"parameters": params or [], "blocks": blocks, **definition}}


def codes(diags) -> list[str]:
    return [d.code for d in diags]


def cpu(fn):
    start = time.process_time()
    result = fn()
    return result, time.process_time() - start


def linear(run, make, n: int):
    """``run(make(2n))``'s result, after holding its CPU time within 3x that of ``run(make(n))``
    (twice the input: about twice the time; a quadratic cost would be 4x). Both are measured in
    the same run, interleaved, best of three each: a busy machine slows a single measurement
    (other processes share the caches and memory), not the best of several."""
    small, big = make(n), make(2 * n)
    run(small)  # warm the per-process caches
    t1 = t2 = float("inf")
    for _ in range(3):
        t1 = min(t1, cpu(lambda: run(small))[1])
        result, took = cpu(lambda: run(big))
        t2 = min(t2, took)
    assert t2 < 3.0 * t1 + 0.02, (t1, t2)
    return result


# ------------------------------------------------------------------------------ limits


def test_limits_are_one_dataclass_with_config_names():
    assert DEFAULT.file_bytes == 4 * 1024 * 1024 and DEFAULT.depth == 500
    assert DEFAULT.with_values({"blocks": 7, "loop-depth": 3}) == Limits(blocks=7, loop_depth=3)
    for bad in ({"nope": 1}, {"blocks": 0}, {"blocks": "7"}, {"blocks": True}):
        with pytest.raises(ValueError):
            DEFAULT.with_values(bad)


def test_file_size_limit_before_reading(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_bytes(b"title: t\n" + b"#" * 5_000_000 + b"\n")
    r = CliRunner().invoke(main, ["check", "--format", "concise", str(big)])
    assert r.exit_code == 1
    assert "WF006 [unreadable-file]" in r.output and "'file-bytes' limit of 4194304" in r.output
    r = CliRunner().invoke(main, ["check", "--format", "concise", "--limit", "file-bytes=6000000", str(big)])
    assert "WF006" not in r.output


def test_standard_input_obeys_the_size_limit():
    data = b"title: t\n" + b"#" * 200 + b"\n"
    r = CliRunner().invoke(main, ["check", "--format", "concise", "--limit", "file-bytes=100", "-"], input=data)
    assert r.exit_code == 1 and "<stdin>:1:1: WF006" in r.output
    assert codes(check_bytes(data, "x.yaml", Config(limits=Limits(file_bytes=100)))) == ["WF006"]
    assert codes(check_text(data.decode(), "x.yaml", Config(limits=Limits(file_bytes=100)))) == ["WF006"]


def test_limits_from_the_config_file(tmp_path):
    (tmp_path / ".wflint.toml").write_text("[limits]\nblocks = 2\n")
    f = tmp_path / "f.json"
    f.write_text(json.dumps(request([{"block_type": "wait", "label": f"w{i}", "wait_sec": 1} for i in range(3)])))
    r = CliRunner().invoke(main, ["check", "--format", "concise", "--config", str(tmp_path / ".wflint.toml"), str(f)])
    assert "WF007" in r.output and "'blocks' limit of 2" in r.output
    (tmp_path / ".wflint.toml").write_text("[limits]\nblockz = 2\n")
    r = CliRunner().invoke(main, ["check", "--config", str(tmp_path / ".wflint.toml"), str(f)])
    assert r.exit_code == 2 and "unknown limit 'blockz'" in r.output


@pytest.mark.parametrize("option", ["blocks", "blocks=x", "blocks=-1", "nope=3"])
def test_bad_limit_option_is_a_usage_error(tmp_path, option):
    f = tmp_path / "f.yaml"
    f.write_text("title: t\n")
    r = CliRunner().invoke(main, ["check", "--limit", option, str(f)])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_blocks_parameters_and_loop_depth():
    many = request([{"block_type": "wait", "label": f"w{i}", "wait_sec": 1} for i in range(11)])
    small = Config(limits=Limits(blocks=10, parameters=2, loop_depth=2))
    assert codes(check_text(json.dumps(many), "f.json", small)) == ["WF007"]
    params = [{"parameter_type": "workflow", "key": f"k{i}", "workflow_parameter_type": "string"} for i in range(3)]
    assert codes(check_text(json.dumps(request([], params)), "f.json", small)) == ["WF007"]
    inner = [{"block_type": "wait", "label": "w", "wait_sec": 1}]
    for i in range(3):
        inner = [{"block_type": "for_loop", "label": f"l{i}", "loop_over_parameter_key": "p", "loop_blocks": inner}]
    found = check_text(json.dumps(request(inner)), "f.json", small)
    assert codes(found) == ["WF007"] and "'loop-depth' limit of 2" in found[0].message


def test_string_length_limit_points_at_the_string():
    text = json.dumps(request([{"block_type": "text_prompt", "label": "p", "prompt": "x" * 101}]), indent=1)
    found = check_text(text, "f.json", Config(limits=Limits(string_chars=100)))
    assert codes(found) == ["WF007"] and "a string of 101 characters" in found[0].message
    assert text.splitlines()[found[0].line - 1].strip().startswith('"prompt"')


def test_one_long_string_aliased_many_times_stops_early():
    """1 MB aliased 20,000 times is 20 GB of text: refused as the aliases are met (twice as
    many aliases cost no more than twice the time)."""
    def text(aliases: int) -> str:
        return "title: &s " + "x" * 1_000_000 + "\nworkflow_definition: {parameters: [], blocks: []}\nnotes: [" + \
            ", ".join(["*s"] * aliases) + "]\n"

    found = linear(lambda t: check_text(t, "f.yaml"), text, 20_000)
    assert codes(found) == ["WF007"] and "'alias-chars' limit" in found[0].message


def test_deep_jinja_and_python_are_refused_before_parsing():
    deep_if = "{% if a %}" * 60 + "x" + "{% endif %}" * 60
    deep_code = "x = " + "(" * 150 + "1" + ")" * 150
    blocks = [{"block_type": "text_prompt", "label": "p", "prompt": deep_if},
              {"block_type": "code", "label": "c", "code": deep_code}]
    found = check_text(json.dumps(request(blocks)), "f.json")
    messages = [d.message for d in found if d.code == "WF007"]
    assert any("'template-depth' limit of 50" in m for m in messages)
    assert any("code block 'c'" in m and "'code-depth' limit of 100" in m for m in messages)
    assert "WF401" not in codes(found) and "WF404" not in codes(found)
    assert template_depth("{{ ((a)) }}{% if x %}{{ [b] }}{% endif %}", 50) == 2
    assert code_depth("if a:\n    if b:\n        f((1))\n", 100) == 2


# ------------------------------------------------------------------------------ crashes


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_surrogate_escapes_render_in_every_format(tmp_path, fmt, suffix):
    f = tmp_path / f"f.{suffix}"
    f.write_text('{"title": "t", "workflow_definition": {"parameters": [], "blocks": '
                 '[{"block_type": "wait", "label": "\\ud800", "wait_sec": 1, "next_block_label": "\\udcff"}]}}')
    r = subprocess.run([sys.executable, "-m", "wflint", "check", "--format", fmt, str(f)], capture_output=True, timeout=60)
    assert r.returncode == 1 and b"Traceback" not in r.stderr
    out = r.stdout.decode("utf-8")  # strict
    if fmt == "json":  # kept as a JSON escape: the reader gets the lone surrogate back
        assert "\ud800" in json.dumps(json.loads(out), ensure_ascii=False).encode("utf-8", "surrogatepass").decode("utf-8", "surrogatepass")
    elif fmt in ("sarif", "gitlab"):  # consumers that show text: U+FFFD
        assert "\ufffd" in json.dumps(json.loads(out), ensure_ascii=False)
    elif fmt == "junit":
        import xml.etree.ElementTree as ET

        assert "\ufffd" in "".join(ET.fromstring(out).itertext()) + out
    else:
        assert "\\ud800" in out


def test_non_string_branch_target_is_a_finding_not_a_crash():
    blocks = [{"block_type": "conditional", "label": "c", "next_block_label": "a",
               "branch_conditions": [{"criteria": {"expression": "x"}, "next_block_label": ["a"]},
                                     {"is_default": True, "next_block_label": {"b": 1}}]},
              {"block_type": "wait", "label": "a", "wait_sec": 1}]
    assert "WF102" in codes(check_text(json.dumps(request(blocks, version=2)), "f.json"))


def test_a_number_for_branch_conditions_is_a_finding_not_a_crash():
    """Found by the property tests: WF403 iterated branch_conditions whatever it held (exit 3)."""
    blocks = [{"block_type": "conditional", "label": "c", "branch_conditions": 5},
              {"block_type": "text_prompt", "label": "p", "prompt": "{{ c_output }}"}]
    assert "WF102" in codes(check_text(json.dumps(request(blocks, version=2)), "f.json"))


def test_non_utf8_config_is_a_config_error(tmp_path):
    cfg = tmp_path / ".wflint.toml"
    cfg.write_bytes(b'select = ["WF1\xff"]\n')
    f = tmp_path / "f.yaml"
    f.write_text("title: t\n")
    r = CliRunner().invoke(main, ["check", "--config", str(cfg), str(f)])
    assert r.exit_code == 2 and "not valid UTF-8" in r.output and r.exception is None or isinstance(r.exception, SystemExit)


@pytest.mark.parametrize("value", ["", ",", " "])
def test_empty_select_is_a_usage_error(tmp_path, value):
    f = tmp_path / "f.yaml"
    f.write_text("title: t\n")
    r = CliRunner().invoke(main, ["check", "--select", value, str(f)])
    assert r.exit_code == 2 and "every rule off" in r.output


# ------------------------------------------------------------------------------ output


def test_control_characters_are_escaped_in_human_formats(tmp_path):
    name = tmp_path / "evil\x1b[2J\nforged.json:1:1: WF001 x.json"
    label = "a\x1b]0;pwned\x07\nfake.yaml:9:9: WF000 [x] error: forged"
    name.write_text(json.dumps(request([{"block_type": "wait", "label": label, "wait_sec": 1}])))
    for fmt in ("concise", "full", "github"):
        r = subprocess.run([sys.executable, "-m", "wflint", "check", "--format", fmt, str(name)],
                           capture_output=True, timeout=60)
        out = r.stdout.decode("utf-8")
        assert "\x1b" not in out and "\x07" not in out
        if fmt != "full":
            assert all(line.startswith(str(tmp_path) if fmt == "concise" else "::") for line in out.splitlines()), out


def test_every_format_is_valid_utf8_for_non_utf8_file_names(tmp_path):
    name = os.fsdecode(bytes(tmp_path) + b"/bad\xff.json")
    Path(name).write_text(json.dumps(request([{"block_type": "wait", "label": "a-b", "wait_sec": 1}])))
    for fmt in sorted(FORMATS):
        r = subprocess.run([sys.executable, "-m", "wflint", "check", "--format", fmt, name], capture_output=True, timeout=60)
        out = r.stdout.decode("utf-8")  # strict
        assert r.returncode == 1 and "Traceback" not in r.stderr.decode("utf-8", "replace")
        if fmt in ("json", "sarif", "gitlab"):
            json.loads(out)
        if fmt == "json":
            assert "bad\\udcff.json" in out
        if fmt in ("concise", "full"):
            assert "bad\\xff.json" in out


@pytest.mark.parametrize("brk", ["\x85", "\u2028", "\u2029"])
def test_full_quotes_the_right_line_after_unusual_breaks(tmp_path, brk):
    f = tmp_path / "f.yaml"
    f.write_text(f"title: 'a{brk}b'\nworkflow_definition:\n  parameters: []\n  blocks:\n"
                 "    - {block_type: wait, label: w, wait_sec: 1, navigaton_goal: x}\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["check", str(f)])
    quoted = [line for line in r.output.splitlines() if line.startswith("   5 | ")]
    assert quoted and "navigaton_goal" in quoted[0], r.output


@pytest.mark.parametrize("brk", ["\x0b", "\x0c"])
def test_full_quotes_the_whole_line_around_vt_and_ff(tmp_path, brk):
    """YAML refuses VT and FF: the finding is on their line, quoted whole (escaped), not cut there."""
    f = tmp_path / "f.yaml"
    f.write_text(f"title: 'a{brk}b'\nworkflow_definition: {{}}\n", encoding="utf-8")
    r = CliRunner().invoke(main, ["check", str(f)])
    quoted = [line for line in r.output.splitlines() if line.startswith("   1 | ")]
    assert quoted == [f"   1 | title: 'a\\x{ord(brk):02x}b'"], r.output


def test_full_quotes_a_window_of_a_long_line():
    """A 300 KB minified file used to repeat its one line for every finding (459 MB)."""
    blocks = [{"block_type": "wait", "label": f"w{i}", "wait_sec": 0} for i in range(5000)]
    text = json.dumps(request(blocks), separators=(",", ":"))
    diags, took = cpu(lambda: check_text(text, "f.json"))
    out = full.render(diags, lambda path, n: text if n == 1 else None, registry())
    assert len(diags) >= 5000 and len(out) < 600 * len(diags)
    line = out.splitlines()[1]
    assert line.startswith("   1 | …") and line.endswith("…") and len(line) < 140
    caret = out.splitlines()[2]
    assert line[caret.index("^") :].startswith("0")  # the caret sits under the offending value


# ------------------------------------------------------------------------------ linear costs


def _timed_memory(fn):
    tracemalloc.start()
    start = time.process_time()
    fn()
    took = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return took, peak


def _v1_chain(n: int) -> str:
    blocks = [{"block_type": "text_prompt", "label": f"b{i}", "prompt": f"{{{{ b{i + 1}_output }}}}"} for i in range(n)]
    return json.dumps(request(blocks))


def _nested_conditionals(n: int) -> str:
    """Each conditional branches to the next; the merge points chain back: WF403's route
    analysis revisited blocks quadratically often (2,400 conditionals: 7.8 s)."""
    blocks = []
    for i in range(n // 2):
        blocks.append({"block_type": "conditional", "label": f"c{i}", "next_block_label": f"m{i}", "branch_conditions": [
            {"criteria": {"expression": "{{ x }}"}, "next_block_label": f"c{i + 1}" if i + 1 < n // 2 else "leaf"},
            {"is_default": True, "next_block_label": f"m{i}"}]})
        blocks.append({"block_type": "text_prompt", "label": f"m{i}", "prompt": f"{{{{ c{i}_output }}}}",
                       **({"next_block_label": f"m{i - 1}"} if i else {})})
    blocks.append({"block_type": "wait", "label": "leaf", "wait_sec": 1})
    params = [{"parameter_type": "workflow", "key": "x", "workflow_parameter_type": "string"}]
    return json.dumps(request(blocks, params, version=2))


@pytest.mark.parametrize("make", [_v1_chain, _nested_conditionals], ids=["wf403-v1-chain", "wf403-nested-conditionals"])
def test_doubling_the_blocks_about_doubles_time_and_memory(make):
    small, big = make(800), make(1600)
    check_text(small, "f.json")  # warm the caches
    t1, m1 = _timed_memory(lambda: check_text(small, "f.json"))
    t2, m2 = _timed_memory(lambda: check_text(big, "f.json"))
    assert m2 < 2.6 * m1, (m1, m2)
    assert t2 < 3.0 * t1 + 0.2, (t1, t2)


def test_nested_conditionals_near_the_block_limit_check_in_linear_time():
    """4,800 blocks of nested conditionals took 7.8 s of WF403 alone (quadratic); now linear."""
    found = linear(lambda t: check_text(t, "f.json"), _nested_conditionals, 2400)
    assert "WF007" not in codes(found)


def test_sanitizer_is_linear_in_renames():
    """2,000 dash labels in 365 KB took 84 s."""
    def steps(n: int) -> dict:
        return request([{"block_type": "text_prompt", "label": f"step-{i}", "prompt": f"{{{{ step-{i - 1}_output }}}} " * 10}
                        for i in range(n)])

    result = linear(sanitizer.sanitize, steps, 2000)
    assert result.request["workflow_definition"]["blocks"][5]["prompt"].startswith("{{ step_4_output }}")


def test_renames_agree_with_the_literal_steps():
    blocks = [{"label": "a-b", "prompt": "{{a-b_output}} {{ a-b }} {{a-bc}} {{{ a-b"},
              {"label": "a_b", "prompt": "{{ a_b }} {{a-b-}}"},
              {"label": "x", "loop_blocks": [{"label": "1x", "prompt": "{{ 1x.y }} {{1x_output}}"}]}]
    params = [{"key": "k-1", "default_value": "a-b_output"}, {"key": "k_1", "default_value": "{{ k-1 }}"}]
    req = request(blocks, params, workflow_system_prompt="{{ a-b }}", error_code_mapping={"{{ k-1 }}": "{{a-b}}"})
    assert sanitizer.sanitize(req).request == sanitizer.sanitize(req, one_by_one=True).request


def test_suggestions_are_bounded():
    """A 493 KB file with thousands of undefined names took 35 s."""
    def navigations(n: int) -> str:
        return json.dumps(request([{"block_type": "navigation", "label": f"n{i}", "url": "https://example.com",
                                    "navigation_goal": "x", "parameter_keys": [f"undefined_{i}"], "navigaton_goal": "y"}
                                   for i in range(n)]))

    found = linear(lambda t: check_text(t, "f.json"), navigations, 750)
    assert sum(1 for d in found if d.code == "WF205") == 1500


def test_undefined_context_sources_are_linear():
    """WF209 scanned every parameter and sorted every candidate per finding (4,000: 4.7 s)."""
    def contexts(n: int) -> str:
        return json.dumps(request([], [{"parameter_type": "context", "key": f"c{i}", "source_parameter_key": f"nope_{i}"}
                                       for i in range(n)]))

    found = linear(lambda t: check_text(t, "f.json"), contexts, 1000)
    assert sum(1 for d in found if d.code == "WF209") == 2000


def test_a_mapping_with_thousands_of_unknown_keys_is_linear():
    """Each finding looked its key up by scanning every pair: 20,000 unknown keys took 28 s."""
    def unknown_keys(n: int) -> str:
        return json.dumps(request([{"block_type": "wait", "label": "w", "wait_sec": 1, **{f"k{i}": 1 for i in range(n)}}]))

    found = linear(lambda t: check_text(t, "f.json"), unknown_keys, 5000)
    assert sum(1 for d in found if d.code == "WF104") == 10000
    first = next(d for d in found if d.code == "WF104")
    assert "'k0'" in first.message and first.end_column - first.column == len('"k0"')
