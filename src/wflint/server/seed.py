"""``--seed``: create workflows from definition files when the server starts.

Each file gets a workflow id derived from its path (as given on the command line, in POSIX
form), so scripts can rely on the id across runs. A ``.json`` file is an update body (with
``json_definition`` / ``yaml_definition``) or a bare request object; a ``.yaml``/``.yml``
file is sent as ``yaml_definition``. Seeds go through the same pipeline as requests: a file
the service would refuse is reported with the service's answer and the others are seeded
(``--seed-strict`` refuses to start instead). With ``--db``,
an unchanged file is left alone on restart and a changed one becomes a new version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ..config import Config
from ..discovery import Problem, discover
from .errors import Reply
from .ids import derived_id
from .yamlload import load_definition as load_yaml
from .pipeline import save_workflow
from .state import ServerState

SUFFIXES = (".json", ".yaml", ".yml")


class SeedError(Exception):
    pass


@dataclass
class Seeded:
    wpid: str
    title: str
    path: str
    version: int

    def line(self) -> str:
        return f"{self.wpid}\t{self.title}\t{self.path}"


def seed_files(paths: Iterable[str], problems: list[Problem] | None = None,
               config: Config | None = None) -> Iterator[Path]:
    """The definition files under ``paths``, walked as ``wflint check`` walks (regular files
    only, hidden directories, .gitignore'd files and the configuration's ``exclude`` skipped).
    An entry that cannot be read raises ``SeedError``, or is added to ``problems`` when given."""
    try:
        found = discover(list(paths), config or Config())
    except FileNotFoundError as exc:
        raise SeedError(str(exc)) from None
    for problem in found.problems:
        if problems is None:
            raise SeedError(problem.message)
        problems.append(problem)
    for candidate in found.candidates:
        if candidate.path.suffix in SUFFIXES:
            yield candidate.path


def seed_id(path: Path) -> str:
    return derived_id("wpid", "seed:" + path.as_posix())


def _body(path: Path, text: str) -> object:
    if path.suffix == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise SeedError(f"{path}: invalid JSON: {exc}") from None
        if isinstance(data, dict) and ("json_definition" in data or "yaml_definition" in data):
            return data
        return {"json_definition": data}
    # a YAML file may itself be an update body (yaml_definition: | ...): send it as one
    try:
        data = load_yaml(text)
    except Exception:  # noqa: BLE001 - a YAML error is reported by the pipeline, verbatim
        data = None
    if isinstance(data, dict) and ("json_definition" in data or "yaml_definition" in data):
        return data
    return {"yaml_definition": text}


def _is_workflow(path: Path, text: str) -> bool:
    """Directories may hold other YAML/JSON: seed only what looks like a workflow, as
    ``wflint check`` walks directories."""
    return any(k in text for k in ("workflow_definition", "json_definition", "yaml_definition"))


@dataclass
class NotSeeded:
    path: str
    reason: str

    def line(self) -> str:
        return f"{self.path}: not seeded: {self.reason}"


def seed(state: ServerState, organization_id: str, paths: Iterable[str],
         failures: list[NotSeeded] | None = None, config: Config | None = None) -> list[Seeded]:
    """Create or update a workflow per definition file. A file that cannot be read or that
    the service would refuse raises ``SeedError``, or, given a ``failures`` list, is added to
    it while the other files are seeded."""
    out = []
    explicit = {Path(p) for p in paths}
    problems: list[Problem] | None = None if failures is None else []
    for path in seed_files(paths, problems, config):
        try:
            out.extend(_seed_one(state, organization_id, path, path in explicit))
        except SeedError as exc:
            if failures is None:
                raise
            failures.append(NotSeeded(path.as_posix(), str(exc).removeprefix(f"{path}: ")))
    if failures is not None:
        failures.extend(NotSeeded(problem.shown, problem.message) for problem in problems or [])
    return out


def _seed_one(state: ServerState, organization_id: str, path: Path, explicit: bool) -> list[Seeded]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedError(f"{path}: cannot read: {exc}") from None
    if not explicit and not _is_workflow(path, text):
        return []
    wpid = seed_id(path)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    existing = state.store.latest(organization_id, wpid, include_deleted=True)
    if existing is not None and state.store.seed_hash(wpid) == digest:
        return [Seeded(wpid, existing["title"], path.as_posix(), existing["version"])]
    try:
        doc, _ = save_workflow(state, organization_id, _body(path, text), wpid=wpid, create=existing is None)
    except Reply as reply:
        raise SeedError(f"{path}: the service would answer {reply.status}: {json.dumps(reply.body)}") from None
    state.store.set_seed_hash(wpid, digest)
    return [Seeded(wpid, doc["title"], path.as_posix(), doc["version"])]
