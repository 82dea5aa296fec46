"""Every command snippet of the README and the documentation site (the ```sh blocks) is run as
written, or says why not: an unmarked block runs here, in a scratch repository with workflows
in `flows/` and `workflows/`; a block marked `release` runs under `pytest -m release` in a copy
of this repository (it installs from the package index); any other block must be marked
`not runnable here: <why>`. The site itself is built with `mkdocs build --strict`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from readme_snippets import PAGES, ROOT, all_blocks, code_blocks

COMMAND_LANGUAGES = {"sh", "bash", "shell", "console"}
BIN = Path(sys.executable).parent
VALID = ROOT / "fixtures" / "valid"


def command_blocks():
    return [b for b in all_blocks() if b.language in COMMAND_LANGUAGES]


def _kind(block) -> str:
    if block.marker is None:
        return "run"
    if block.marker.startswith("release"):
        return "release"
    assert block.marker.startswith("not runnable here: ") and len(block.marker) > 40, \
        f"{block}: a snippet marker is `release (...)` or `not runnable here: <why>`, not {block.marker!r}"
    return "skip"


def test_every_command_snippet_is_run_or_says_why_not():
    blocks = command_blocks()
    assert len({b.page for b in blocks}) >= 5, [str(b) for b in blocks]  # the README and the docs pages
    kinds = {str(b): _kind(b) for b in blocks}
    assert "run" in kinds.values() and "release" in kinds.values(), kinds


def test_the_readme_test_command_is_exactly_what_ci_runs():
    (install, test) = code_blocks("Two commands", "sh")
    assert test.strip() in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def _scratch(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    for folder in ("flows", "workflows"):
        (repo / folder).mkdir(parents=True)
        for name in ("supplier_screening_update_body.yaml", "competitor_price_watch.json"):
            shutil.copy(VALID / name, repo / folder / name)
        shutil.copy(sorted(VALID.glob("*.yaml"))[0], repo / folder / "orders.yaml")
    # `wflint graph ... -o pictures/` names a directory for several files; until `--out` makes a
    # missing one itself (issue 23), the scratch repository has it, as the page's reader would
    (repo / "pictures").mkdir()
    return repo


@pytest.mark.parametrize("block", [b for b in command_blocks() if _kind(b) == "run"], ids=str)
def test_each_runnable_command_snippet_runs_as_written(block, tmp_path):
    if "svg" in block.text and shutil.which("dot") is None:
        pytest.skip("Graphviz's dot is not installed (the svg line needs it)")
    repo = _scratch(tmp_path)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=repo, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{block}\n{block.text}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"


@pytest.mark.release
@pytest.mark.parametrize("block", [b for b in command_blocks() if _kind(b) == "release"], ids=str)
def test_each_release_snippet_runs_as_written_in_a_copy_of_the_repository(block, tmp_path):
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.splitlines()
    copy = tmp_path / "wflint"
    for rel in files:
        if (ROOT / rel).is_file():
            (copy / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, copy / rel)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if Path(p) != BIN)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", block.text], cwd=copy, env=env,
                       capture_output=True, text=True, timeout=900)
    expected = 1 if "fixtures/invalid" in block.text else 0  # the invalid examples exit 1, as the page says
    assert r.returncode == expected, f"{block}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    site = tmp_path / "site"
    r = subprocess.run([str(BIN / "mkdocs"), "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
                        "--site-dir", str(site)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    pages = {p.relative_to(site).as_posix() for p in site.rglob("index.html")}
    for doc in PAGES[1:]:
        name = "index.html" if doc.stem == "index" else f"{doc.stem}/index.html"
        assert name in pages, (doc.name, "every page of docs/ is in the site")


def test_the_readme_is_short_and_links_only_to_files_that_exist():
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode()) < 15_000
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", readme):
        assert (ROOT / target).exists(), target


def test_the_configuration_examples_are_valid_configurations():
    import tomllib

    from wflint.project.config import from_table

    pages = [ROOT / "docs" / "configuration.md", ROOT / "docs" / "limits.md"]
    blocks = [b for b in all_blocks(pages) if b.language == "toml"]
    assert len(blocks) >= 3
    for b in blocks:
        from_table(tomllib.loads(b.text), str(b)).validate()  # a ConfigError names the block


@contextmanager
def _serving(cwd: Path, *args: str):
    """`wflint serve` on a free port (instead of the pages' 8000) in ``cwd``; yields its base URL."""
    import socket
    import time

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([str(BIN / "wflint"), "serve", "--port", str(port), "--api-key", "dev-key=o_1", *args],
                            cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and proc.poll() is None, "wflint serve did not start"
                time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_mock_pages_plain_http_workaround_runs_against_wflint_serve(tmp_path):
    """docs/mock.md's way to read and write a workflow the official client cannot parse, run as
    written against `wflint serve` seeded with such a workflow."""
    (block,) = [b for b in all_blocks([ROOT / "docs" / "mock.md"]) if b.language == "python" and "import httpx" in b.text]
    (tmp_path / "workflows").mkdir()
    flow = ("title: stop early\nworkflow_definition:\n  parameters: []\n  blocks:\n"
            "    - {block_type: terminate, label: stop, reason: nothing to do}\n")
    (tmp_path / "workflows" / "stop.yaml").write_text(flow)
    (tmp_path / "flow.yaml").write_text(flow.replace("nothing to do", "done"))
    with _serving(tmp_path, "--seed", "workflows/") as base:
        code = block.text.replace("http://127.0.0.1:8000", base)
        r = subprocess.run([sys.executable, "-c", code + "\nprint(saved.json()['version'], wf['workflow_definition']['blocks'][0]['block_type'])"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "terminate"]


#: the workflow docs/mock-runs.md's client example runs: its parameter, a stubbed block using it
ORDERS = """title: orders
workflow_definition:
  parameters:
    - {parameter_type: workflow, key: order_id, workflow_parameter_type: string}
  blocks:
    - block_type: navigation
      label: open_order
      url: https://shop.example/orders
      navigation_goal: Open order {{ order_id }}
      parameter_keys: [order_id]
"""


def test_the_run_pages_client_example_runs_against_wflint_serve(tmp_path):
    """docs/mock-runs.md's official-client example (`run_workflow(agent_id=...)`, then `get_run`
    until final), run as written against `wflint serve` seeded with an `orders` workflow whose
    stubbed block gives an output."""
    pytest.importorskip("skyvern")
    (block,) = [b for b in all_blocks([ROOT / "docs" / "mock-runs.md"]) if b.language == "python" and "run_workflow" in b.text]
    (tmp_path / "workflows").mkdir()
    (tmp_path / "workflows" / "orders.yaml").write_text(ORDERS)
    (tmp_path / "stubs").mkdir()
    (tmp_path / "stubs" / "orders.json").write_text('{"blocks": {"open_order": {"output": {"state": "shipped"}}}}')
    with _serving(tmp_path, "--seed", "workflows/", "--stubs", "stubs") as base:
        code = block.text.replace("http://127.0.0.1:8000", base)
        r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    status, output = r.stdout.split(" ", 1)
    assert status == "completed" and "'open_order_output'" in output and "shipped" in output, r.stdout


def test_the_wflint_commands_of_the_ci_snippets_run_in_a_repository(tmp_path):
    """Each `wflint check` line of the YAML CI snippets (README, docs), run in a scratch
    repository: it checks (0 or 1), never a usage or internal error (2, 3)."""
    import shlex

    import yaml

    lines = []
    for b in all_blocks():
        if b.language != "yaml" or "wflint" not in b.text:
            continue
        data = yaml.safe_load(b.text)
        jobs = data.get("jobs", {}).values() if isinstance(data, dict) and "jobs" in data else \
            (data.values() if isinstance(data, dict) else data)
        for job in jobs or []:
            steps = job.get("steps", [job]) if isinstance(job, dict) else []
            for step in steps:
                runs = [step["run"]] if isinstance(step, dict) and isinstance(step.get("run"), str) else []
                runs += job.get("script", []) if isinstance(job, dict) and step is job else []
                lines += [(b, line) for run in runs for line in run.splitlines() if line.strip().startswith("wflint check")]
    assert {str(b.page.name) for b, _ in lines} >= {"README.md", "ci.md"}, lines
    repo = _scratch(tmp_path)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    env.pop("CI_PROJECT_DIR", None)
    for b, line in lines:
        r = subprocess.run(shlex.split(line, comments=True), cwd=repo, env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode in (0, 1), (str(b), line, r.stderr)
        assert "Traceback" not in r.stderr
