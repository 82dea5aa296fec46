"""The two versions a diff compares, read from files or from git revisions.

A ``Version`` is a path and the bytes it held; nothing here parses a workflow. ``from_git``
lists the workflow files that changed between two revisions (or a revision and the working
tree) with ``git diff --name-status``, reads the old bytes with ``git show REV:PATH``, and
finds each workflow's test file (``NAME.test.yaml``) on the new side.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..simulate.suite import TEST_SUFFIXES, WORKFLOW_SUFFIXES

#: the working tree, as the "revision" of a side
WORKTREE = None


class VersionError(Exception):
    """A version cannot be read (a usage error: exit 2)."""


@dataclass
class Version:
    #: the path as shown (relative to the repository's top in git mode)
    path: str
    data: bytes


@dataclass
class Pair:
    old: Version | None
    new: Version | None
    #: the test file beside the workflow on the new side (or the old one, for a removed workflow)
    test: Version | None = None


def read_file(path: str) -> Version:
    try:
        return Version(path, Path(path).read_bytes())
    except FileNotFoundError:
        raise VersionError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise VersionError(f"{path}: is a directory (give two workflow files, or use --git)") from None
    except OSError as exc:
        raise VersionError(f"cannot read {path}: {exc.strerror or exc}") from None


def test_beside(path: str, read) -> Version | None:
    """The test file beside workflow ``path``, read with ``read(path) -> bytes | None``."""
    p = PurePosixPath(path)
    if p.name.lower().endswith(TEST_SUFFIXES):
        return None
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    for suffix in TEST_SUFFIXES:
        candidate = str(p.with_name(stem + suffix))
        data = read(candidate)
        if data is not None:
            return Version(candidate, data)
    return None


def from_files(old: str, new: str) -> Pair:
    def read(path: str) -> bytes | None:
        try:
            return Path(path).read_bytes()
        except OSError:
            return None

    new_version = read_file(new)
    return Pair(read_file(old), new_version, test_beside(new, read) or test_beside(old, read))


# --------------------------------------------------------------------------- git


def _git(args: list[str], cwd: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise VersionError("git is not installed (needed by --git)") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise VersionError(f"git {' '.join(args[:2])}: {message[-1] if message else 'failed'}")
    return done.stdout


def parse_revisions(spec: str) -> tuple[str, str | None]:
    """``A..B`` -> (A, B); ``A`` or ``A..`` -> (A, the working tree). ``A...B`` compares B with
    the merge base of A and B, as ``git diff A...B`` does."""
    if not spec or spec.startswith("-"):
        raise VersionError(f"not a revision: {spec!r}")
    if "..." in spec:
        a, b = spec.split("...", 1)
        return f"{a or 'HEAD'}...{b or 'HEAD'}", b or "HEAD"
    if ".." in spec:
        a, b = spec.split("..", 1)
        return a or "HEAD", b or WORKTREE
    return spec, WORKTREE


def from_git(spec: str, paths: list[str], cwd: str = ".") -> list[Pair]:
    """A pair per workflow-looking file (``.yaml``, ``.yml``, ``.json``, test files aside) that
    changed between the revisions, limited to ``paths``."""
    old_rev, new_rev = parse_revisions(spec)
    top = _git(["rev-parse", "--show-toplevel"], cwd).decode().strip()
    if "..." in old_rev:
        a, b = old_rev.split("...", 1)
        old_rev = _git(["merge-base", a, b], top).decode().strip()
    rel_paths = []
    for p in paths:
        where = Path(cwd, p) if not Path(p).is_absolute() else Path(p)
        try:
            rel_paths.append(where.resolve().relative_to(Path(top).resolve()).as_posix() or ".")
        except ValueError:
            raise VersionError(f"{p}: outside the git repository at {top}") from None
    args = ["diff", "--name-status", "-z", "-M", "--no-ext-diff", old_rev] + ([new_rev] if new_rev else [])
    listing = _git(args + ["--", *rel_paths] if rel_paths else args, top).split(b"\0")

    def read_old(path: str) -> bytes | None:
        return _show(old_rev, path, top)

    def read_new(path: str) -> bytes | None:
        if new_rev is WORKTREE:
            try:
                return (Path(top) / path).read_bytes()
            except OSError:
                return None
        return _show(new_rev, path, top)

    pairs: list[Pair] = []
    items = [x.decode("utf-8", "surrogateescape") for x in listing if x]
    i = 0
    while i < len(items):
        status = items[i]
        if status[:1] in ("R", "C"):
            old_path, new_path, i = items[i + 1], items[i + 2], i + 3
        else:
            old_path = new_path = items[i + 1]
            i += 2
        if not _workflow_name(new_path):
            continue
        old = Version(old_path, read_old(old_path) or b"") if status[:1] != "A" else None
        new = Version(new_path, read_new(new_path) or b"") if status[:1] != "D" else None
        if status[:1] == "C":
            old = None  # a copy: the old file is still there; the new one is new
        test = test_beside(new_path, read_new) if new is not None else test_beside(old_path, read_old)
        pairs.append(Pair(old, new, test))
    return pairs


def _show(rev: str, path: str, top: str) -> bytes | None:
    try:
        return _git(["show", f"{rev}:{path}"], top)
    except VersionError:
        return None


def _workflow_name(path: str) -> bool:
    name = path.lower()
    return name.endswith(WORKFLOW_SUFFIXES) and not name.endswith(TEST_SUFFIXES)
