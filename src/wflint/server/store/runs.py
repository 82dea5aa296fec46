"""Runs, their block rows and the registered stubs, in the mock's SQLite store.

The tables are added beside the workflow tables (``CREATE TABLE IF NOT EXISTS``), so a store
written before runs existed opens as it is and gains them; the schema number is unchanged
because nothing already stored changes meaning.

A run is one row holding its whole record as JSON (the request, resolved parameters, status,
timestamps, output, errors, webhook outcome). Every status change is one transaction that
rewrites that row (``BEGIN IMMEDIATE`` ... ``COMMIT``, WAL, as for workflows), committed
before anyone is told of it: the POST answers after the ``created`` row is committed, and a
poll can only see what was committed, so a SIGKILL loses nothing a client was shown.
"""

from __future__ import annotations

from typing import Any

from ...engine import json_values
from .database import Store

RUN_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id                 TEXT PRIMARY KEY,
    organization_id        TEXT NOT NULL,
    workflow_permanent_id  TEXT NOT NULL,
    status                 TEXT NOT NULL,
    created_at             TEXT NOT NULL,
    record                 TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status);
CREATE TABLE IF NOT EXISTS run_blocks (
    run_id    TEXT NOT NULL REFERENCES runs (run_id),
    position  INTEGER NOT NULL,
    row       TEXT NOT NULL,
    PRIMARY KEY (run_id, position)
);
CREATE TABLE IF NOT EXISTS run_stubs (
    organization_id        TEXT NOT NULL,
    workflow_permanent_id  TEXT NOT NULL,
    stubs                  TEXT NOT NULL,
    PRIMARY KEY (organization_id, workflow_permanent_id)
);
"""

#: the statuses a run ends in (the service's ``is_final``)
FINAL = frozenset({"completed", "failed", "terminated", "canceled", "timed_out"})


class RunStore:
    """Run tables on a ``Store``'s connection (same lock, same transactions)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        with store._lock:
            store._db.executescript(RUN_SCHEMA)

    # ------------------------------------------------------------------ runs

    def insert(self, record: dict[str, Any]) -> None:
        with self.store._transaction() as db:
            db.execute("INSERT INTO runs (run_id, organization_id, workflow_permanent_id, status, created_at, record) "
                       "VALUES (?, ?, ?, ?, ?, ?)",
                       (record["run_id"], record["organization_id"], record["workflow_permanent_id"],
                        record["status"], record["created_at"], json_values.dumps(record)))

    def get(self, run_id: str, organization_id: str | None = None) -> dict[str, Any] | None:
        """The run, only within ``organization_id`` when given (organizations never see each other's)."""
        if organization_id is None:
            rows = self.store._query("SELECT record FROM runs WHERE run_id = ?", (run_id,))
        else:
            rows = self.store._query("SELECT record FROM runs WHERE run_id = ? AND organization_id = ?",
                                     (run_id, organization_id))
        return json_values.loads(rows[0]["record"]) if rows else None

    def update(self, run_id: str, change: dict[str, Any], *, unless_final: bool = False) -> dict[str, Any] | None:
        """Merge ``change`` into the run's record in one transaction; the new record, or None when
        the run is missing or (with ``unless_final``) already in a final status."""
        with self.store._transaction() as db:
            rows = db.execute("SELECT record FROM runs WHERE run_id = ?", (run_id,)).fetchall()
            if not rows:
                return None
            record = json_values.loads(rows[0]["record"])
            if unless_final and record["status"] in FINAL:
                return None
            record.update(change)
            db.execute("UPDATE runs SET status = ?, record = ? WHERE run_id = ?",
                       (record["status"], json_values.dumps(record), run_id))
            return record

    def unfinished(self) -> list[str]:
        """Runs a previous process acknowledged but did not finish, oldest first."""
        placeholders = ", ".join("?" for _ in FINAL)
        return [r["run_id"] for r in self.store._query(
            f"SELECT run_id FROM runs WHERE status NOT IN ({placeholders}) ORDER BY created_at, rowid", tuple(FINAL))]

    def undelivered(self) -> list[dict[str, Any]]:
        """Finished runs with a webhook URL whose delivery has no outcome yet (the process that
        ran them stopped before it was recorded)."""
        placeholders = ", ".join("?" for _ in FINAL)
        rows = self.store._query(
            f"SELECT record FROM runs WHERE status IN ({placeholders}) "
            "AND json_extract(record, '$.webhook_url') IS NOT NULL "
            "AND json_extract(record, '$.webhook_failure_reason') IS NULL ORDER BY created_at, rowid", tuple(FINAL))
        return [json_values.loads(r["record"]) for r in rows]

    # ------------------------------------------------------------------ block rows

    def set_block(self, run_id: str, position: int, row: dict[str, Any]) -> None:
        with self.store._transaction() as db:
            db.execute("INSERT OR REPLACE INTO run_blocks (run_id, position, row) VALUES (?, ?, ?)",
                       (run_id, position, json_values.dumps(row)))

    def replace_blocks(self, run_id: str, rows: list[dict[str, Any]]) -> None:
        with self.store._transaction() as db:
            db.execute("DELETE FROM run_blocks WHERE run_id = ?", (run_id,))
            db.executemany("INSERT INTO run_blocks (run_id, position, row) VALUES (?, ?, ?)",
                           [(run_id, i, json_values.dumps(r)) for i, r in enumerate(rows)])

    def blocks(self, run_id: str) -> list[dict[str, Any]]:
        return [json_values.loads(r["row"]) for r in self.store._query(
            "SELECT row FROM run_blocks WHERE run_id = ? ORDER BY position", (run_id,))]

    # ------------------------------------------------------------------ stubs

    def set_stubs(self, organization_id: str, wpid: str, stubs: dict[str, Any] | None) -> None:
        with self.store._transaction() as db:
            if stubs is None:
                db.execute("DELETE FROM run_stubs WHERE organization_id = ? AND workflow_permanent_id = ?",
                           (organization_id, wpid))
            else:
                db.execute("INSERT OR REPLACE INTO run_stubs (organization_id, workflow_permanent_id, stubs) "
                           "VALUES (?, ?, ?)", (organization_id, wpid, json_values.dumps(stubs)))

    def stubs(self, organization_id: str, wpid: str) -> dict[str, Any] | None:
        rows = self.store._query("SELECT stubs FROM run_stubs WHERE organization_id = ? AND workflow_permanent_id = ?",
                                 (organization_id, wpid))
        return json_values.loads(rows[0]["stubs"]) if rows else None
