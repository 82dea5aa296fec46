"""Stubs for the mock's runs: what the browser, agent and LLM parts of a workflow return.

A stub table is the one ``wflint simulate`` takes (``blocks``, ``tasks``, ``llm``,
``prompt_branches``; ``name`` is kept, ``parameters`` come from each run), plus the mock-only
``delays``: seconds a block takes, by label (``"*"`` for every block), so a client's polling
and timeouts can be tested. Stubs are found, for a run, in this order:

1. registered for the workflow with ``PUT /_mock/stubs/{workflow_permanent_id}`` (stored, per
   organization; ``DELETE`` removes them);
2. a ``--stubs DIR`` file: ``DIR/<name>.json`` or ``.yaml`` whose ``workflow`` key (else its file
   name) is the workflow's permanent id or title;
3. none: every stubbed block completes with an empty output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

CASE_KEYS = ("name", "blocks", "tasks", "llm", "prompt_branches")
MOCK_KEYS = ("delays", "workflow")
#: one block's delay at most (mock-only; a stub must not park a worker for hours)
MAX_DELAY_SECONDS = 600


class StubError(ValueError):
    pass


def check(stubs: Any, where: str = "stubs") -> dict[str, Any]:
    """The stub table, or ``StubError`` saying what is wrong with it."""
    if not isinstance(stubs, dict):
        raise StubError(f"{where}: expected an object with {', '.join(CASE_KEYS + MOCK_KEYS)}")
    unknown = sorted(k for k in stubs if k not in CASE_KEYS + MOCK_KEYS + ("parameters",))
    if unknown:
        raise StubError(f"{where}: unknown key {unknown[0]!r} (expected {', '.join(CASE_KEYS + MOCK_KEYS)})")
    for key in ("blocks", "tasks", "llm", "prompt_branches", "delays"):
        if key in stubs and not isinstance(stubs[key], dict):
            raise StubError(f"{where}: {key} must be an object keyed by block label")
    for label, seconds in (stubs.get("delays") or {}).items():
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= MAX_DELAY_SECONDS:
            raise StubError(f"{where}: delays.{label} must be a number of seconds from 0 to {MAX_DELAY_SECONDS}")
    if "name" in stubs and not isinstance(stubs["name"], str):
        raise StubError(f"{where}: name must be a string")
    from ...engine.stubs import table_problem  # the engine's own reading of the tables

    problem = table_problem(stubs)
    if problem is not None:
        raise StubError(f"{where}: {problem}")
    return {k: v for k, v in stubs.items() if k not in ("parameters", "workflow")}


def _load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    import yaml

    return yaml.safe_load(text)


@dataclass
class StubDirectory:
    """The ``--stubs DIR`` files, read once at start, by workflow permanent id or title."""

    by_key: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def read(cls, directory: str | Path) -> "StubDirectory":
        root = Path(directory)
        if not root.is_dir():
            raise StubError(f"{root}: not a directory")
        found = cls()
        for path in sorted(p for p in root.iterdir() if p.suffix in (".json", ".yaml", ".yml") and p.is_file()):
            try:
                data = _load(path)
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                raise StubError(f"{path}: cannot be read: {exc}") from None
            except Exception as exc:  # noqa: BLE001 - a YAML error of any kind is the file's fault
                raise StubError(f"{path}: cannot be read: {exc}") from None
            key = data.get("workflow", path.stem) if isinstance(data, dict) else path.stem
            if not isinstance(key, str) or not key:
                raise StubError(f"{path}: workflow must be a workflow permanent id or title")
            if key in found.by_key:
                raise StubError(f"{path}: a second stub file for {key!r}")
            found.by_key[key] = check(data, str(path))
        return found

    def find(self, wpid: str, title: str) -> dict[str, Any] | None:
        return self.by_key.get(wpid) or self.by_key.get(title)


def for_run(registered: Mapping[str, Any] | None, directory: StubDirectory | None, wpid: str,
            title: str) -> dict[str, Any]:
    if registered is not None:
        return dict(registered)
    found = directory.find(wpid, title) if directory is not None else None
    return dict(found) if found is not None else {}
