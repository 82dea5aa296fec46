"""Commands import only what they use: a pre-commit hook or an editor pays for start-up on
every save. Each case runs in a fresh interpreter and lists the heavy packages it loaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VALID_FILE = next(p for p in sorted((ROOT / "fixtures" / "valid").iterdir()) if p.suffix == ".yaml")
HEAVY = ("jsonschema", "jsonschema_rs", "jinja2", "starlette", "uvicorn", "pydantic", "wflint.server", "wflint.fix", "wflint.api",
         "pygls", "lsprotocol", "mcp", "wflint.mcp", "sqlite3", "tomllib", "wflint.rules", "wflint.project.config", "pathspec")

PROBE = """
import contextlib, io, sys
from wflint.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:], standalone_mode=True)
    except SystemExit:
        pass
heavy = {HEAVY!r}
print(" ".join(sorted(h for h in heavy if h in sys.modules)))
"""


def loaded(*args: str, cwd: Path = ROOT) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.replace("{HEAVY!r}", repr(HEAVY)), *args],
                         capture_output=True, text=True, check=True, cwd=cwd)
    return set(out.stdout.split())


def test_version_loads_nothing_heavy():
    assert loaded("--version") == set()


def test_importing_the_command_line_loads_click_and_the_format_names_only():
    code = "import sys, wflint.cli; print(' '.join(sorted(m for m in sys.modules if m.startswith('wflint'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["wflint", "wflint.cli", "wflint.core", "wflint.core.exit_status", "wflint.core.records", "wflint.report",
                                  "wflint.report.color", "wflint.report.formats"]


def test_rule_does_not_load_the_validators_or_the_server():
    assert loaded("rule", "WF201") & {"jsonschema", "jsonschema_rs", "starlette", "pydantic", "wflint.server"} == set()


@pytest.mark.skipif(__import__("importlib.util").util.find_spec("jsonschema_rs") is None,
                    reason="without jsonschema-rs every file takes python-jsonschema's path")
def test_checking_a_valid_file_skips_python_jsonschema_and_the_server():
    got = loaded("check", str(VALID_FILE))
    assert "wflint.api" in got and "jsonschema_rs" in got  # the probe sees the check's imports
    assert got & {"jsonschema", "starlette", "pydantic", "wflint.server", "wflint.fix"} == set()


SIMPLE_TEMPLATES = """\
title: t
workflow_definition:
  parameters:
    - {parameter_type: workflow, key: site, workflow_parameter_type: string}
  blocks:
    - block_type: navigation
      label: open
      url: "{{ site }}"
      navigation_goal: "Open {{ site | upper }} and read {{ open_output.price }}"
"""


LOOP_OUTPUT_TOJSON = """\
title: t
workflow_definition:
  parameters:
    - {parameter_type: workflow, key: orders, workflow_parameter_type: json}
  blocks:
    - block_type: for_loop
      label: each_order
      loop_over_parameter_key: orders
      loop_blocks:
        - {block_type: text_prompt, label: look, prompt: "Look at {{ current_value }}"}
    - block_type: text_prompt
      label: summarize
      prompt: "Summarize {{ each_order_output | tojson }} and {{ each_order_output[0][0].output_value | tojson }}"
"""


@pytest.mark.parametrize("text", [
    # ``{{ name }}``, ``{{ name.attr }}``, ``{{ name | filter }}``
    SIMPLE_TEMPLATES,
    # comparisons, arithmetic, filter arguments
    SIMPLE_TEMPLATES.replace("{{ site | upper }}", "{{ site | replace('/', '_') }} {{ site == 'x' }} {{ 'a' if site else 'b' }}"),
    # WF701 reading a tojson of a loop's output
    LOOP_OUTPUT_TOJSON,
], ids=["plain", "expressions", "loop-output-tojson"])
def test_checking_templates_without_statements_does_not_import_jinja2(tmp_path, text):
    path = tmp_path / "flow.yaml"
    path.write_text(text)
    got = loaded("check", str(path))
    assert "wflint.api" in got and "jinja2" not in got


def test_wf701_finds_a_tojson_of_a_loop_output_without_jinja2(tmp_path):
    path = tmp_path / "flow.yaml"
    path.write_text(LOOP_OUTPUT_TOJSON)
    found = subprocess.run([sys.executable, "-m", "wflint", "check", "--format", "concise", str(path)],
                           capture_output=True, text=True, cwd=tmp_path)
    assert [line.split()[1] for line in found.stdout.splitlines() if "WF701" in line] == ["WF701"]


def test_a_configuration_without_globs_does_not_import_pathspec(tmp_path):
    (tmp_path / ".wflint.toml").write_text('ignore = ["WF213"]\n')
    (tmp_path / "flow.yaml").write_text(SIMPLE_TEMPLATES)
    got = loaded("check", "flow.yaml", cwd=tmp_path)
    assert "wflint.project.config" in got and "tomllib" in got and "pathspec" not in got


def test_a_template_with_a_statement_still_imports_jinja2(tmp_path):
    path = tmp_path / "flow.yaml"
    path.write_text(SIMPLE_TEMPLATES.replace("{{ site | upper }}", "{% if site %}{{ site }}{% endif %}"))
    assert "jinja2" in loaded("check", str(path))


def test_rule_imports_only_the_rule_it_shows():
    code = """
import contextlib, io, sys
from wflint.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(["rule", "WF201"])
    except SystemExit:
        pass
print(" ".join(m for m in sys.modules if m.startswith("wflint.rules.wf")))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["wflint.rules.wf201_duplicate_label"]


def test_a_rule_found_before_the_registry_is_the_registrys_rule():
    # lookup() imports one module by its file name before the registry exists; it must find
    # what the registry finds, by code and by name, and nothing for near misses
    code = """
from wflint import rules
keys = [m.partition("_")[0].upper() for m in rules._module_names()]
keys += [m.partition("_")[2].replace("_", "-") for m in rules._module_names()]
keys += ["wf201", " WF201 ", "Duplicate-Label"]
early = {k: rules.lookup(k) for k in keys}
assert rules.registry.cache_info().currsize == 0  # each found by its own module
misses = ["duplicate_label", "WF2", "WF999", "ALL", ""]  # these fall back to the registry
early.update({k: rules.lookup(k) for k in misses})
keys += misses
late = {k: rules.registry().get(k.strip().upper()) or rules.by_name().get(k.strip().lower()) for k in keys}
assert early == late, [k for k in keys if early[k] != late[k]]
print(sum(v is not None for v in early.values()))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) > 100


def test_every_rule_module_is_named_after_its_code_and_name():
    from wflint.rules import registry

    for rule in registry().values():
        assert rule.module.__name__ == f"wflint.rules.{rule.code.lower()}_{rule.name.replace('-', '_')}"


def test_a_check_leaves_its_objects_to_the_os_at_exit_and_still_writes_everything(tmp_path):
    # the interpreter's last collections would walk every object of the run; ``check`` freezes
    # them in an atexit handler. A handler registered before the command runs after it.
    path = tmp_path / "flow.yaml"
    path.write_text(SIMPLE_TEMPLATES.replace("navigation_goal:", "navigation_gol:"))
    out_file = tmp_path / "report.json"
    code = f"""
import atexit, gc, sys
atexit.register(lambda: print("frozen", gc.get_freeze_count() > 0))
from wflint.cli import main
main(["check", "--format", "json", "-o", {str(out_file)!r}, {str(path)!r}])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1, out.stderr
    assert out.stdout.strip() == "frozen True"
    assert '"code": "WF109"' in out_file.read_text()  # the misspelt navigation_gol


@pytest.mark.skipif(__import__("importlib.util").util.find_spec("pygls") is None, reason="the lsp extra is not installed")
def test_the_language_server_starts_without_the_fixer():
    # quick fixes and renames import it on their first request; the first diagnostics do not wait
    code = "import sys, wflint.lsp.server; print(' '.join(m for m in sys.modules if m.startswith('wflint.fix')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == []


CLEAN = SIMPLE_TEMPLATES.replace("{{ open_output.price }}", "the price")


def test_checking_a_clean_file_without_configuration_imports_only_what_it_needs(tmp_path):
    # near-miss suggestions (difflib), error-code checks (unicodedata), TOML (no config file
    # here), Jinja's parser, the fixer, the server and the language server are for other files
    path = tmp_path / "flow.yaml"
    path.write_text(CLEAN)
    code = """
import sys
from wflint.cli import main
try:
    main(["check", "flow.yaml"])
except SystemExit as exc:
    print("exit", exc.code)
print(" ".join(m for m in ("difflib", "unicodedata", "tomllib", "jinja2", "jsonschema", "wflint.fix",
                           "wflint.server", "wflint.lsp", "pygls", "sqlite3") if m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "exit 0", out.stdout + out.stderr
    assert lines[1:] in ([], [""])


@pytest.mark.parametrize("target, collecting", [("flow.yaml", False), (".", True)])
def test_the_collector_stays_off_for_one_file_only(tmp_path, target, collecting):
    # one file: the collection after its check would only free what the exit gives back; a
    # walk of many files collects between them, so memory stays flat
    (tmp_path / "flow.yaml").write_text(CLEAN)
    code = f"""
import atexit, gc
atexit.register(lambda: print("collecting", gc.isenabled()))
from wflint.cli import main
main(["check", {target!r}])
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["collecting", str(collecting)]


def test_a_check_called_in_a_process_that_goes_on_leaves_the_collector_as_it_was(tmp_path):
    # a test or a tool calling main() keeps its collector, and gets no exit handler
    (tmp_path / "flow.yaml").write_text(CLEAN)
    code = """
import atexit, gc
from click.testing import CliRunner
import wflint.cli as cli
result = CliRunner().invoke(cli.main, ["check", "flow.yaml"])
print(result.exit_code, gc.isenabled(), cli._EXIT_HANDLER_SET)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "True", "False"]


def test_version_reads_the_release_list_without_building_the_model():
    code = """
import contextlib, io, sys
from wflint.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main(["--version"])
    except SystemExit:
        pass
print(" ".join(sorted(m for m in sys.modules if m.startswith("wflint.model"))))
print(out.getvalue().strip())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    modules, version = out.stdout.splitlines()
    assert modules.split() == ["wflint.model", "wflint.model.releases"]
    assert "1.0.56" in version


def test_wflint_lsp_starts_the_server_without_the_command_line_parser():
    # an editor runs exactly `wflint lsp`: the server answers before click would have loaded
    code = ("import sys\n"
            "import wflint.lsp.start as start\n"
            "start.run_language_server = lambda: print(' '.join(sorted(m for m in ('click', 'wflint.cli') if m in sys.modules)) or '-')\n"
            "sys.argv = ['wflint', 'lsp']\n"
            "from wflint.entry import main\n"
            "main()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.split() == ["-"]
    helped = subprocess.run([sys.executable, "-m", "wflint", "lsp", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert helped.returncode == 0 and "Run the language server" in helped.stdout  # other forms: the command line


def test_the_mcp_sdk_is_imported_by_wflint_mcp_only():
    """The ``mcp`` extra stays optional: importing wflint, checking a file and listing the
    commands never import the SDK (or wflint's server over it)."""
    code = "import sys, wflint; print(' '.join(sorted(m for m in sys.modules if m.split('.')[0] == 'mcp' or m.startswith('wflint.mcp'))))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout.split() == []
    assert loaded("check", str(VALID_FILE)) & {"mcp", "wflint.mcp"} == set()
    assert loaded("--help") & {"mcp", "wflint.mcp"} == set()
