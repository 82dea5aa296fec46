"""Cached virtual environments, one per service release, outside the repository.

``skyvern[local]==X`` carries the real server code (about 1.3 GB); it is installed once into
``$WFLINT_ORACLE_CACHE/skyvern-X`` (default ``~/.cache/wflint-oracle``) and reused. A marker
file is written only after a successful install, so an interrupted one is redone.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent


def cache_dir() -> Path:
    return Path(os.environ.get("WFLINT_ORACLE_CACHE", Path.home() / ".cache" / "wflint-oracle"))


def venv_dir(release: str) -> Path:
    return cache_dir() / f"skyvern-{release}"


def python_of(release: str) -> Path:
    return venv_dir(release) / "bin" / "python"


def installed(release: str) -> bool:
    return (venv_dir(release) / ".installed").exists() or _importable(release)


def _importable(release: str) -> bool:
    py = python_of(release)
    if not py.exists():
        return False
    probe = subprocess.run([str(py), "-c", "import importlib.metadata as m; print(m.version('skyvern'))"],
                           capture_output=True, text=True)
    ok = probe.returncode == 0 and probe.stdout.strip() == release
    if ok:
        (venv_dir(release) / ".installed").touch()
    return ok


def ensure(release: str, *, install: bool = True, log=print) -> Path:
    """The Python of the release's environment, installing it first when needed."""
    if installed(release):
        return python_of(release)
    if not install:
        raise SystemExit(f"oracle: skyvern {release} is not installed in {venv_dir(release)} (run without --no-install)")
    d = venv_dir(release)
    d.parent.mkdir(parents=True, exist_ok=True)
    log(f"oracle: installing skyvern[local]=={release} into {d} (about 1.3 GB, 1-3 minutes) ...")
    t0 = time.monotonic()
    venv.create(d, with_pip=True, clear=d.exists())
    cmd = [str(python_of(release)), "-m", "pip", "install", "-q", f"skyvern[local]=={release}"]
    done = subprocess.run(cmd)
    if done.returncode != 0:
        raise SystemExit(f"oracle: installing skyvern {release} failed (exit {done.returncode})")
    (d / ".installed").touch()
    log(f"oracle: installed skyvern {release} in {time.monotonic() - t0:.0f} s")
    return python_of(release)


def run_in(release: str, script: str, *args: str, install: bool = True, **kw) -> subprocess.CompletedProcess:
    """Run one of this folder's scripts with the release's Python."""
    py = ensure(release, install=install, log=lambda m: print(m, file=sys.stderr))
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "SKYVERN_TELEMETRY": "false",
           "LOG_LEVEL": "WARNING", "PYTHONWARNINGS": "ignore"}
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(py), str(HERE / script), *args], env=env, **kw)
