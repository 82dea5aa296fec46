"""tools/install-test-tools.sh with Node installed but the npm registry unreachable: the script
succeeds, says what failed, and the Node-based tests skip with that reason, as they do
without Node (a fresh clone's test command must not stop at the tools)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from node_tools import NPM_FAILED_MARKER, require

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = ["tests/mermaid", "tools/yaml-language-server", "tools/mcp-inspector"]


def _closed_port() -> int:
    with socket.socket() as s:  # bound, then closed: nothing listens there afterwards
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed (the script skips the Node projects then)")
def test_an_unreachable_npm_registry_skips_the_node_tests_instead_of_failing_the_run(tmp_path):
    for rel in ["tools/install-test-tools.sh", *(f"{p}/{f}" for p in PROJECTS for f in ("package.json", "package-lock.json"))]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "dot").write_text("#!/bin/sh\nexit 0\n")  # so the script never reaches for apt-get
    (bin_dir / "dot").chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "npm_config_registry": f"http://127.0.0.1:{_closed_port()}/",
           "npm_config_cache": str(tmp_path / "npm-cache"),  # empty: nothing can come from a cache
           "npm_config_offline": "false", "npm_config_prefer_offline": "false",
           "npm_config_fetch_retries": "0"}  # a refused connection is final: no retries to wait for
    r = subprocess.run(["bash", str(tmp_path / "tools" / "install-test-tools.sh")], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    for project in PROJECTS:
        marker = tmp_path / project / NPM_FAILED_MARKER
        assert marker.is_file(), r.stderr
        assert f"npm ci failed in {project}" in r.stderr
        assert not (tmp_path / project / "node_modules").exists()
        if shutil.which("node") is not None:  # without Node the tests skip for that reason first
            with pytest.raises(pytest.skip.Exception, match="could not be installed.*npm ci failed.*ECONNREFUSED"):
                require(tmp_path / project, tmp_path / project / "node_modules" / "x", "the project")


def test_a_project_never_installed_is_a_failure_not_a_skip(tmp_path):
    if shutil.which("node") is None:
        pytest.skip("Node.js is not installed: the check skips before looking at the project")
    with pytest.raises(pytest.fail.Exception, match="not installed for the tests"):
        require(tmp_path, tmp_path / "node_modules" / "x", "the project")
