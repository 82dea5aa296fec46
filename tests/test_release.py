"""`python -m build` makes an sdist and a wheel that pass `twine check` and install into a
fresh venv with a working `wflint`. Needs the package index: `pytest -m release`."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.release
def test_build_twine_check_and_install(tmp_path):
    tools = tmp_path / "tools"
    venv.create(tools, with_pip=True)
    py = tools / "bin" / "python"
    subprocess.run([py, "-m", "pip", "install", "-q", "build", "twine"], check=True, timeout=600)
    dist = tmp_path / "dist"
    subprocess.run([py, "-m", "build", "--outdir", dist, ROOT], check=True, timeout=600, capture_output=True)
    built = sorted(p.name for p in dist.iterdir())
    assert any(n.endswith(".whl") for n in built) and any(n.endswith(".tar.gz") for n in built), built
    twine = subprocess.run([py, "-m", "twine", "check", "--strict", *dist.iterdir()], capture_output=True, text=True)
    assert twine.returncode == 0 and twine.stdout.count("PASSED") == 2, twine.stdout + twine.stderr
    fresh = tmp_path / "fresh"
    venv.create(fresh, with_pip=True)
    wheel = next(dist.glob("*.whl"))
    subprocess.run([fresh / "bin" / "python", "-m", "pip", "install", "-q", wheel], check=True, timeout=600)
    r = subprocess.run([fresh / "bin" / "wflint", "check", "--format", "concise", ROOT / "fixtures" / "valid"],
                       capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
