"""The ``skyvern`` release a repository pins, for ``target-version`` when the configuration
names none.

A team that runs a self-hosted service usually pins the package it deployed: ``skyvern==1.0.44``
in a ``requirements*.txt``, in ``pyproject.toml`` (``[project]`` dependencies and extras,
``[dependency-groups]``, ``[tool.poetry.*dependencies]``), or the version a lock file resolved
(``poetry.lock``, ``uv.lock``, ``pdm.lock``, ``Pipfile.lock``, ``requirements*.lock``). Only an
exact pin counts (``==``, ``===``, a bare Poetry version, a lock's resolved version): a range
says nothing about the release the server runs.

The search starts in a directory and goes up to the repository's root (the first directory
holding ``.git``) or the file system's root; the first directory with a pin wins. Inside it, a
lock file wins over the files people edit, since it says what was installed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..core.records import Record, assign

#: ``skyvern``, optionally with extras, pinned exactly (PEP 508, as pip reads a requirement line)
_REQUIREMENT = re.compile(
    r"^\s*skyvern\s*(?:\[[^\]]*\])?\s*===?\s*v?([0-9]+(?:\.[0-9]+)*)\s*(?:;.*)?$", re.I)
_LOCKS_TOML = ("poetry.lock", "uv.lock", "pdm.lock")
#: the largest file read: pins sit in small files, and a huge one is not worth a slow start
_MAX_BYTES = 4 * 1024 * 1024


class Pin(Record):
    """An exact ``skyvern`` pin: the version, the file that holds it, and how it reads there."""

    def __init__(self, version: str, path: Path, written: str) -> None:
        assign(self, locals())

    def origin(self) -> str:
        """For ``--show-settings`` and error messages."""
        return f"the skyvern pin in {self.path} ({self.written})"


class ConflictingPins(ValueError):
    """One directory's files pin two different releases."""


def find_pin(start: Path) -> Pin | None:
    """The pin nearest ``start`` (a directory), or None. ConflictingPins when the files of one
    directory disagree and no lock file settles it."""
    start = start.resolve()
    for d in [start, *start.parents]:
        pin = _pin_in(d)
        if pin is not None or (d / ".git").exists():
            return pin
    return None


def _pin_in(d: Path) -> Pin | None:
    locked = [p for p in (_from_toml_lock(d / name) for name in _LOCKS_TOML) if p is not None]
    locked += [p for p in (_from_pipfile_lock(d / "Pipfile.lock"),) if p is not None]
    found = locked or [p for p in (
        *(_from_requirements(f) for f in sorted(d.glob("requirements*.txt"))),
        *(_from_requirements(f) for f in sorted(d.glob("requirements*.lock"))),
        _from_pyproject(d / "pyproject.toml"),
    ) if p is not None]
    if not found:
        return None
    versions = sorted({p.version for p in found})
    if len(versions) > 1:
        where = "; ".join(f"{p.path.name}: {p.written}" for p in found)
        raise ConflictingPins(f"the files in {d} pin different skyvern releases ({where}); "
                              "set target-version to the one your service runs")
    return found[0]


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _from_requirements(path: Path) -> Pin | None:
    text = _read(path)
    if text is None or "skyvern" not in text.lower():
        return None
    for line in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", line)  # a comment; a '#' inside a URL has no blank before it
        line = re.sub(r"\s--hash=\S+", "", line).rstrip("\\ \t")
        m = _REQUIREMENT.match(line)
        if m:
            return Pin(m.group(1), path, line.strip())
    return None


def _toml(path: Path) -> dict[str, Any] | None:
    text = _read(path)
    if text is None or "skyvern" not in text.lower():
        return None
    import tomllib

    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None  # a broken file pins nothing; the tool that owns it will say so


def _from_toml_lock(path: Path) -> Pin | None:
    data = _toml(path)
    packages = data.get("package") if data else None
    for pkg in packages if isinstance(packages, list) else ():
        if isinstance(pkg, dict) and str(pkg.get("name", "")).lower() == "skyvern" and isinstance(pkg.get("version"), str):
            return Pin(pkg["version"], path, f"skyvern {pkg['version']}")
    return None


def _from_pipfile_lock(path: Path) -> Pin | None:
    text = _read(path)
    if text is None or "skyvern" not in text.lower():
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    for section in ("default", "develop"):
        entry = data.get(section, {}).get("skyvern") if isinstance(data.get(section), dict) else None
        version = entry.get("version") if isinstance(entry, dict) else None
        if isinstance(version, str) and version.startswith("=="):
            return Pin(version.lstrip("="), path, f"skyvern {version}")
    return None


def _from_pyproject(path: Path) -> Pin | None:
    data = _toml(path)
    if not data:
        return None
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    lists: list[Any] = [project.get("dependencies")]
    extras = project.get("optional-dependencies")
    lists += list(extras.values()) if isinstance(extras, dict) else []
    groups = data.get("dependency-groups")
    lists += list(groups.values()) if isinstance(groups, dict) else []
    for items in lists:
        for item in items if isinstance(items, list) else ():
            m = _REQUIREMENT.match(item) if isinstance(item, str) else None
            if m:
                return Pin(m.group(1), path, item.strip())
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        group = poetry.get("group")
        tables += [g.get("dependencies") for g in group.values() if isinstance(g, dict)] if isinstance(group, dict) else []
        for table in tables:
            spec = table.get("skyvern") if isinstance(table, dict) else None
            spec = spec.get("version") if isinstance(spec, dict) else spec
            m = re.fullmatch(r"\s*(?:==?)?\s*([0-9]+(?:\.[0-9]+)*)\s*", spec) if isinstance(spec, str) else None
            if m:  # Poetry reads a bare version as an exact one
                return Pin(m.group(1), path, f"skyvern = {json.dumps(spec)}")
    return None
