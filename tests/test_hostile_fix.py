"""``wflint fix`` never loses a file: a full disk, a file-size limit, a failing sync or an
edit made while it runs leave the original byte for byte, exit 2, and no "(changed)"."""

from __future__ import annotations

import errno
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from wflint.fix import fix

def big_fixable(labels: int = 100, padding: int = 200_000) -> bytes:
    """Each `blk-N` label is renamed to `blk_N`; a comment pads the file past 138 KB (the
    `ulimit -f 138` of the probe) without making the fix itself slow."""
    lines = ["# " + "x" * padding, "title: big", "workflow_definition:", "  parameters: []", "  blocks:"]
    for i in range(labels):
        lines += ["    - block_type: wait", f"      label: blk-{i}", "      wait_sec: 1"]
    return ("\n".join(lines) + "\n").encode()


def invoke(*args):
    return CliRunner().invoke(fix, list(args), catch_exceptions=False)


def leftovers(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.endswith(".wflint-tmp")]


@pytest.fixture
def flow(tmp_path):
    f = tmp_path / "flow.yaml"
    f.write_bytes(big_fixable())
    return f


@pytest.mark.parametrize("where", ["write", "fsync"])
def test_a_failing_write_leaves_the_original_and_claims_no_change(flow, monkeypatch, where):
    import wflint.fix.atomic as atomic

    before = flow.read_bytes()

    def no_space(*_a, **_k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    if where == "fsync":
        monkeypatch.setattr(atomic.os, "fsync", no_space)
    else:
        real_fdopen = atomic.os.fdopen

        class HalfWriter:
            def __init__(self, f):
                self.f = f

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.f.close()

            def write(self, data):
                self.f.write(data[: len(data) // 2])
                no_space()

            def __getattr__(self, name):
                return getattr(self.f, name)

        monkeypatch.setattr(atomic.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    r = invoke(str(flow))
    assert r.exit_code == 2
    assert flow.read_bytes() == before
    assert "(changed)" not in r.stderr and "No space left on device" in r.stderr
    assert "left unchanged" in r.stderr
    assert r.stdout == ""  # no change lines for a change that did not happen
    assert leftovers(flow.parent) == []


def test_a_file_size_limit_leaves_the_original(flow):
    """`ulimit -f 138` (141,312 bytes) under a 200 KB fix: the old code left 141,312 bytes."""
    before = flow.read_bytes()
    assert len(before) > 138 * 1024

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (138 * 1024, 138 * 1024))

    r = subprocess.run([sys.executable, "-m", "wflint", "fix", str(flow)], capture_output=True,
                       text=True, preexec_fn=limit, timeout=120)
    assert r.returncode == 2, r.stderr
    assert flow.read_bytes() == before
    assert "(changed)" not in r.stderr and "File too large" in r.stderr
    assert leftovers(flow.parent) == []


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 480 KB tmpfs (root only; skipped elsewhere)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=480k", "tmpfs", str(mount)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_full_disk_leaves_the_original(small_tmpfs):
    flow = small_tmpfs / "flow.yaml"
    data = big_fixable()
    flow.write_bytes(data)
    # Leave less free space than the fixed file needs.
    filler = small_tmpfs / "filler"
    stats = os.statvfs(small_tmpfs)
    filler.write_bytes(b"x" * max(0, stats.f_bavail * stats.f_frsize - len(data) // 2))
    r = subprocess.run([sys.executable, "-m", "wflint", "fix", str(flow)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert flow.read_bytes() == data
    assert "(changed)" not in r.stderr and "No space left on device" in r.stderr
    assert leftovers(small_tmpfs) == []


def test_an_edit_made_while_fix_runs_is_not_overwritten(flow, monkeypatch):
    import wflint.fix as fix_package

    real = fix_package.fix_text
    edited = b"title: edited meanwhile\n"

    def editor_saves_meanwhile(text, path, *args, **kwargs):
        result = real(text, path, *args, **kwargs)
        flow.write_bytes(edited)
        return result

    monkeypatch.setattr(fix_package, "fix_text", editor_saves_meanwhile)
    r = invoke(str(flow))
    assert r.exit_code == 2
    assert flow.read_bytes() == edited
    assert "changed while it was being fixed" in r.stderr and "(changed)" not in r.stderr
    assert leftovers(flow.parent) == []


def test_mode_is_kept_and_a_symlink_still_points_at_the_fixed_file(flow):
    flow.chmod(0o640)
    link = flow.with_name("link.yaml")
    link.symlink_to(flow.name)
    r = invoke(str(link))
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and os.readlink(link) == flow.name
    assert b"blk_7" in flow.read_bytes() and b"blk-7" not in flow.read_bytes()
    assert (flow.stat().st_mode & 0o777) == 0o640
    assert leftovers(flow.parent) == []
