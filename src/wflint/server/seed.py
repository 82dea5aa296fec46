"""``--seed``: create workflows from definition files when the server starts.

Each file gets a workflow id derived from its path (as given on the command line, in POSIX
form), so scripts can rely on the id across runs. A ``.json`` file is an update body (with
``json_definition`` / ``yaml_definition``) or a bare request object; a ``.yaml``/``.yml``
file is sent as ``yaml_definition``. Seeds go through the same door and pipeline as requests
(the body-bytes limit, JSON nesting, string length, text UTF-8 can hold): a file the service
would refuse, or one that cannot be read at all, is reported as not seeded with the reason
and the others are seeded (``--seed-strict`` refuses to start instead). File names that are
not UTF-8 are shown (and hashed into the id) with their odd bytes escaped. With ``--db``,
an unchanged file is left alone on restart and a changed one becomes a new version.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ..project.config import Config
from ..project.discovery import Problem, discover, read_limited
from .protocol.errors import Reply
from .protocol.ids import derived_id
from .protocol.intake import MISSING, decode_json, printable, refuse_bad_strings
from .protocol.limits import ServerLimits
from .workflows.yamlload import load_definition as load_yaml
from .workflows.pipeline import save_workflow
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
        return f"{self.wpid}\t{printable(self.title)}\t{self.path}"


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


def shown(path: Path) -> str:
    """A path as text that can be printed and hashed: a file name that is not UTF-8 (kept by
    Python with ``surrogateescape``) shows its odd bytes as ``\\xff`` escapes."""
    return path.as_posix().encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def seed_id(path: Path) -> str:
    return derived_id("wpid", "seed:" + shown(path))


def _body(path: Path, data: bytes, text: str, limits: ServerLimits) -> object:
    """The request body a seed file stands for, through the same door checks as an HTTP
    body (nesting, string length, text UTF-8 can hold): a refusal is the service's answer."""
    if path.suffix == ".json":
        value = decode_json(data, "application/json", limits)
        if value is MISSING:
            raise SeedError(f"{shown(path)}: the file is empty")
        if isinstance(value, dict) and ("json_definition" in value or "yaml_definition" in value):
            return value
        return {"json_definition": value}
    # a YAML file may itself be an update body (yaml_definition: | ...): send it as one
    try:
        value = load_yaml(text, limits)
    except Exception:  # noqa: BLE001 - a YAML error is reported by the pipeline, verbatim
        value = None
    if isinstance(value, dict) and ("json_definition" in value or "yaml_definition" in value):
        refuse_bad_strings(value, limits.string_chars)
        return value
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
            failures.append(NotSeeded(shown(path), str(exc).removeprefix(f"{shown(path)}: ")))
        except Exception as exc:  # noqa: BLE001 - one bad file never stops the others (nor the start)
            reason = f"cannot be seeded ({type(exc).__name__}: {printable(str(exc))[:200]})"
            if failures is None:
                raise SeedError(f"{shown(path)}: {reason}") from None
            failures.append(NotSeeded(shown(path), reason))
    if failures is not None:
        failures.extend(NotSeeded(printable(problem.shown), printable(problem.message)) for problem in problems or [])
    return out


def _seed_one(state: ServerState, organization_id: str, path: Path, explicit: bool) -> list[Seeded]:
    name = shown(path)
    limits = state.config.limits
    try:
        data = read_limited(path, limits.body_bytes)  # the body-bytes limit, as for a request
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SeedError(f"{name}: cannot read: {printable(str(exc))}") from None
    if not explicit and not _is_workflow(path, text):
        return []
    wpid = seed_id(path)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    existing = state.store.latest(organization_id, wpid, include_deleted=True)
    if existing is not None and state.store.seed_hash(wpid) == digest:
        return [Seeded(wpid, existing["title"], path.as_posix(), existing["version"])]
    try:
        doc, _ = save_workflow(state, organization_id, _body(path, data, text, limits), wpid=wpid,
                               create=existing is None)
    except Reply as reply:
        answer = json.dumps(reply.body)
        if len(answer) > 2000:
            answer = answer[:2000] + "…"
        raise SeedError(f"{name}: the service would answer {reply.status}: {answer}") from None
    state.store.set_seed_hash(wpid, digest)
    return [Seeded(wpid, doc["title"], name, doc["version"])]
