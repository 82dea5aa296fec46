"""Configuration and shared state of one mock server instance."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterator

from .protocol.auth import ApiKeys
from .protocol.errors import detail
from .protocol.ids import IdGenerator
from .protocol.limits import ServerLimits
from .store.database import Store


@dataclass
class ServerConfig:
    keys: ApiKeys = field(default_factory=ApiKeys)
    #: SQLite file; None keeps everything in memory
    db_path: str | None = None
    #: --strict: also refuse definitions with wflint errors the service would accept
    strict: bool = False
    #: like Skyvern Cloud: honour an explicit browser_type (a self-hosted server refuses it, C1)
    browser_type_supported: bool = False
    #: credential ids that exist in every organization (rotation lists must name these, C4)
    credentials: frozenset[str] = frozenset()
    #: folder id → title; folders exist in every organization
    folders: dict[str, str] = field(default_factory=dict)
    #: webhook hosts refused as "blocked" (C6)
    blocked_webhook_hosts: frozenset[str] = frozenset()
    #: the service release to answer as (None: the newest modelled one)
    target_version: str | None = None
    #: body size, nesting, alias expansion, time budget (``--limit NAME=N``)
    limits: ServerLimits = field(default_factory=ServerLimits)
    #: --stubs DIR: stub tables for runs, by workflow permanent id or title
    stubs_dir: str | None = None
    #: what executes runs (``run_engine.Executor``); None: wflint's engine
    run_executor: Any = None


class ServerState:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store = Store(config.db_path)
        self.ids = IdGenerator()
        self._inflight: set[str] = set()
        self._inflight_lock = threading.Lock()
        #: slots for CPU-heavy requests (create, update, scripts) working at once
        self.heavy_gate = threading.Semaphore(config.limits.heavy_workers)
        #: slots for request threads of every kind, held until each thread ends
        self.thread_slots = threading.Semaphore(config.limits.request_threads)

        self._start_runs()

    def _start_runs(self) -> None:
        """Runs: their tables, the stubs, the worker; unfinished runs of a previous process resume."""
        from .runs.engine import engine_executor
        from .runs.worker import RunWorker
        from .runs.endpoints import Runs
        from .store.runs import RunStore
        from .runs.stubs import StubDirectory

        from ..model.releases import NEWEST

        self.release = self.config.target_version or NEWEST
        self.runs = RunStore(self.store)
        self.stub_directory = StubDirectory.read(self.config.stubs_dir) if self.config.stubs_dir else None
        self.run_worker = RunWorker(self, self.runs, self.config.run_executor or engine_executor)
        self.runs_api = Runs(self)
        self.run_worker.resume()

    def new_id(self, prefix: str) -> str:
        return self.ids.new(prefix)

    @staticmethod
    def now() -> str:
        """UTC, no zone, microseconds: the service's date-time form."""
        return datetime.now(timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds")

    @contextmanager
    def creating(self, wpid: str) -> Iterator[None]:
        """Marks an idempotent create in progress; a second one at the same time gets 409."""
        with self._inflight_lock:
            if wpid in self._inflight:
                raise detail(409, "Workflow creation with this idempotency key is still in progress.")
            self._inflight.add(wpid)
        try:
            yield
        finally:
            with self._inflight_lock:
                self._inflight.discard(wpid)
