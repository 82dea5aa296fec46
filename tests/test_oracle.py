"""The differential harness against the real service releases (``pytest -m oracle``).

Deselected by default: each release is a 1.3 GB install (cached in ``~/.cache/wflint-oracle``
after the first run) and a run of 3000 generated cases plus the fixtures takes minutes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from wflint import model

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "tools" / "oracle"

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("release", model.RELEASES)
def test_model_audit_is_empty(release):
    done = subprocess.run([sys.executable, str(ORACLE / "audit.py"), release], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize("release", model.RELEASES)
def test_harness_agrees_with_the_release(release):
    done = subprocess.run([sys.executable, str(ORACLE / "harness.py"), release, "--count", "3000"],
                          capture_output=True, text=True)
    print(done.stdout[-5000:])
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
