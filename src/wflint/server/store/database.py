"""The mock's persistent store: SQLite from the standard library.

Every workflow version is one immutable row holding the full workflow object as JSON, plus
the columns that list, search and paging filter on. A write is one ``BEGIN IMMEDIATE``
transaction that reads the highest version number and inserts the next one, so concurrent
writers (threads of this process or other processes on the same file) are serialised by
SQLite itself and can neither lose nor duplicate a version; a crash rolls the transaction
back, so a half-written version never exists. ``UNIQUE(workflow_permanent_id, version)`` is
the last line of defence.

One connection is shared and guarded by a lock: for ``:memory:`` that is the only way to
share the database, and for a file it keeps the code simple (the mock is not a hot path).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from ..protocol.budget import claim_write

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS workflows (
    workflow_id            TEXT PRIMARY KEY,
    workflow_permanent_id  TEXT NOT NULL,
    organization_id        TEXT NOT NULL,
    version                INTEGER NOT NULL,
    title                  TEXT NOT NULL,
    status                 TEXT NOT NULL,
    is_saved_task          INTEGER NOT NULL,
    folder_id              TEXT,
    created_at             TEXT NOT NULL,
    deleted_at             TEXT,
    search_terms           TEXT NOT NULL,
    document               TEXT NOT NULL,
    UNIQUE (workflow_permanent_id, version)
);
CREATE INDEX IF NOT EXISTS workflows_by_org ON workflows (organization_id, workflow_permanent_id, version);
CREATE TABLE IF NOT EXISTS seeds (
    workflow_permanent_id  TEXT PRIMARY KEY,
    content_hash           TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS scripts (
    script_id        TEXT PRIMARY KEY,
    organization_id  TEXT NOT NULL,
    workflow_id      TEXT,
    run_id           TEXT,
    created_at       TEXT NOT NULL,
    summary          TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS script_files (
    script_id     TEXT NOT NULL REFERENCES scripts (script_id),
    position      INTEGER NOT NULL,
    path          TEXT NOT NULL,
    content       BLOB NOT NULL,
    mime_type     TEXT,
    content_hash  TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (script_id, position)
);
"""


#: rendered workflows a store keeps (``Store.rendered``); past it the cache starts again
_RENDERED_MAX = 2_000


class StoreError(RuntimeError):
    pass


def _row_to_workflow(row: sqlite3.Row) -> dict[str, Any]:
    doc = json.loads(row["document"])
    doc["deleted_at"] = row["deleted_at"]
    return doc


class Listed:
    """One workflow of a list: the columns search filters on; its document is read and
    decoded only when it is on the page shown (``Store.documents``): reading and decoding
    every workflow's JSON on every list request was most of its cost."""

    __slots__ = ("_row",)

    def __init__(self, row: sqlite3.Row) -> None:
        self._row = row

    @property
    def title(self) -> str:
        return self._row["title"]

    @property
    def folder_id(self) -> str | None:
        return self._row["folder_id"]

    @property
    def workflow_permanent_id(self) -> str:
        return self._row["workflow_permanent_id"]

    @property
    def workflow_id(self) -> str:
        return self._row["workflow_id"]

    @property
    def search_terms(self) -> list[str]:
        return json.loads(self._row["search_terms"])

    def document(self, stored: sqlite3.Row, first: sqlite3.Row | None) -> dict[str, Any]:
        """The workflow from its ``stored`` row, with ``original_created_*`` from version 1
        (``first``: its two fields, None when the workflow has no version 1 any more)."""
        doc = _row_to_workflow(stored)
        if first is not None:
            doc["original_created_by"] = first["first_created_by"]
            doc["original_created_at"] = first["first_created_at"]
        else:
            doc["original_created_by"] = doc.get("created_by")
            doc["original_created_at"] = doc.get("created_at")
        return doc


class Store:
    def __init__(self, path: str | None = None) -> None:
        self.path = path or ":memory:"
        self._lock = threading.RLock()
        #: how many write transactions have been committed: what was read and derived from
        #: the store at one generation holds until the next (``rendered``)
        self.generation = 0
        self._rendered_generation: tuple[int, int] | None = None
        self._rendered: dict[str, str] = {}
        # isolation_level=None: we issue BEGIN/COMMIT ourselves
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
        self._db.row_factory = sqlite3.Row
        with self._lock:
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                # WAL + NORMAL: every commit is atomic, even on power loss; a crash of the
                # process loses nothing committed
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            found = self._db.execute("PRAGMA user_version").fetchone()[0]
            if found not in (0, SCHEMA_VERSION):
                raise StoreError(f"{self.path}: store schema {found} is not {SCHEMA_VERSION}")
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                claim_write()  # a request already answered (503) writes nothing
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            try:
                self._db.execute("COMMIT")
            finally:
                self.generation += 1

    def _query(self, sql: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # ------------------------------------------------------------------ workflows: reads

    def latest(self, organization_id: str, wpid: str, *, include_deleted: bool) -> dict[str, Any] | None:
        """The highest version of ``wpid`` in the organization (soft-deleted ones too if asked)."""
        deleted = "" if include_deleted else "AND deleted_at IS NULL"
        rows = self._query(
            f"SELECT * FROM workflows WHERE organization_id = ? AND workflow_permanent_id = ? {deleted} "
            "ORDER BY version DESC LIMIT 1",
            (organization_id, wpid),
        )
        return _row_to_workflow(rows[0]) if rows else None

    def latest_webhook(self, organization_id: str, wpid: str) -> tuple[bool, Any]:
        """(whether ``wpid`` has a version in the organization, soft-deleted ones included, the
        ``webhook_callback_url`` of its highest): what a save checks before it writes, without
        decoding the whole stored workflow."""
        rows = self._query(
            "SELECT json_extract(document, '$.webhook_callback_url') FROM workflows "
            "WHERE organization_id = ? AND workflow_permanent_id = ? ORDER BY version DESC LIMIT 1",
            (organization_id, wpid),
        )
        return (True, rows[0][0]) if rows else (False, None)

    def version(self, organization_id: str, wpid: str, version: int) -> dict[str, Any] | None:
        rows = self._query(
            "SELECT * FROM workflows WHERE organization_id = ? AND workflow_permanent_id = ? "
            "AND version = ? AND deleted_at IS NULL",
            (organization_id, wpid, version),
        )
        return _row_to_workflow(rows[0]) if rows else None

    def first_version(self, organization_id: str, wpid: str) -> dict[str, Any] | None:
        """Version 1, soft-deleted or not (idempotent creates return it as is)."""
        rows = self._query(
            "SELECT * FROM workflows WHERE organization_id = ? AND workflow_permanent_id = ? AND version = 1",
            (organization_id, wpid),
        )
        return _row_to_workflow(rows[0]) if rows else None

    def versions(self, organization_id: str, wpid: str) -> list[dict[str, Any]]:
        """Every non-deleted version, newest first."""
        rows = self._query(
            "SELECT * FROM workflows WHERE organization_id = ? AND workflow_permanent_id = ? "
            "AND deleted_at IS NULL ORDER BY version DESC",
            (organization_id, wpid),
        )
        return [_row_to_workflow(r) for r in rows]

    def version_numbers(self, wpid: str) -> list[int]:
        return [r[0] for r in self._query(
            "SELECT version FROM workflows WHERE workflow_permanent_id = ? ORDER BY version", (wpid,))]

    def latest_of_each(
        self,
        organization_id: str,
        *,
        statuses: Sequence[str],
        is_saved_task: bool | None,
        folder_id: str | None,
    ) -> list[Listed]:
        """The latest non-deleted version of every workflow of the organization that passes
        the column filters, newest ``created_at`` first, with its search terms. Each workflow
        carries ``original_created_at`` / ``original_created_by`` from its version 1 (see
        ``Listed.document``)."""
        where = ["w.organization_id = ?", "w.deleted_at IS NULL",
                 f"w.status IN ({', '.join('?' for _ in statuses)})"]
        args: list[Any] = [organization_id, organization_id, *statuses]
        if is_saved_task is not None:
            where.append("w.is_saved_task = ?")
            args.append(int(is_saved_task))
        if folder_id is not None:
            where.append("w.folder_id = ?")
            args.append(folder_id)
        # no document here, not even version 1's: a page shows a few of the workflows, and
        # ``documents`` reads theirs (SQLite parsing every version 1 to extract two fields was
        # most of a list's cost)
        rows = self._query(
            "SELECT w.workflow_id, w.workflow_permanent_id, w.title, w.folder_id, w.search_terms FROM workflows w "
            "JOIN (SELECT workflow_permanent_id, MAX(version) AS version FROM workflows "
            "      WHERE organization_id = ? AND deleted_at IS NULL GROUP BY workflow_permanent_id) latest "
            "  ON latest.workflow_permanent_id = w.workflow_permanent_id AND latest.version = w.version "
            f"WHERE {' AND '.join(where)} ORDER BY w.created_at DESC, w.rowid DESC",
            args,
        )
        return [Listed(row) for row in rows]

    def rendered(self, select: Callable[[], Sequence[Listed]],
                 render: Callable[[dict[str, Any]], str]) -> list[str]:
        """``render(document)`` for each workflow ``select()`` lists (a list page), each
        rendered once per store generation: a page asked for again (a client polling the
        list) costs its query, not the decoding and encoding of every workflow on it. The
        generation is this store's commits and SQLite's ``data_version`` (another process's
        commits to the same file), read under the lock every write takes, so a page never
        mixes two states of the store."""
        with self._lock:
            generation = (self.generation, self._db.execute("PRAGMA data_version").fetchone()[0])
            if self._rendered_generation != generation:
                self._rendered_generation, self._rendered = generation, {}
            cache = self._rendered
            listed = select()
            missing = [item for item in listed if item.workflow_id not in cache]
            for item, doc in zip(missing, self.documents(missing)):
                if len(cache) >= _RENDERED_MAX:
                    cache.clear()
                cache[item.workflow_id] = render(doc)
            return [cache[item.workflow_id] for item in listed]

    def documents(self, listed: Sequence[Listed]) -> list[dict[str, Any]]:
        """The stored workflows of ``listed`` rows (a page of ``latest_of_each``), in order."""
        if not listed:
            return []
        ids = [item.workflow_id for item in listed]
        marks = ", ".join("?" for _ in ids)
        with self._lock:  # the documents and their versions 1 from the same state of the store
            rows = self._db.execute(
                f"SELECT workflow_id, document, deleted_at FROM workflows WHERE workflow_id IN ({marks})", ids).fetchall()
            wpids = [item.workflow_permanent_id for item in listed]
            firsts = self._db.execute(
                "SELECT workflow_permanent_id, json_extract(document, '$.created_by') AS first_created_by, "
                "json_extract(document, '$.created_at') AS first_created_at FROM workflows "
                f"WHERE version = 1 AND workflow_permanent_id IN ({marks})", wpids).fetchall()
        by_id = {row["workflow_id"]: row for row in rows}
        first_of = {row["workflow_permanent_id"]: row for row in firsts}
        return [item.document(by_id[item.workflow_id], first_of.get(item.workflow_permanent_id)) for item in listed]

    # ------------------------------------------------------------------ workflows: writes

    def write_version(
        self,
        organization_id: str,
        wpid: str,
        build: Callable[[dict[str, Any] | None, int], tuple[dict[str, Any], list[str]]],
        *,
        only_if_new: bool = False,
    ) -> tuple[dict[str, Any], bool]:
        """Insert the next version of ``wpid`` atomically.

        ``build(previous, version)`` gets the latest stored version (soft-deleted included;
        ``None`` for a new workflow) and the number the new one gets, and returns the workflow
        object and its search terms. With ``only_if_new`` an existing version 1 is returned
        as is (idempotent create). Returns (workflow, created).
        """
        with self._transaction() as db:
            rows = db.execute(
                "SELECT * FROM workflows WHERE workflow_permanent_id = ? ORDER BY version DESC LIMIT 1",
                (wpid,),
            ).fetchall()
            previous = _row_to_workflow(rows[0]) if rows else None
            if previous is not None and previous["organization_id"] != organization_id:
                raise StoreError(f"{wpid} belongs to another organization")
            if only_if_new and previous is not None:
                first = db.execute(
                    "SELECT * FROM workflows WHERE workflow_permanent_id = ? AND version = 1", (wpid,)
                ).fetchone()
                return _row_to_workflow(first), False
            number = previous["version"] + 1 if previous else 1
            doc, terms = build(previous, number)
            stored = {k: v for k, v in doc.items() if k != "deleted_at"}
            db.execute(
                "INSERT INTO workflows (workflow_id, workflow_permanent_id, organization_id, version, "
                "title, status, is_saved_task, folder_id, created_at, deleted_at, search_terms, document) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)",
                (doc["workflow_id"], wpid, organization_id, number, doc["title"], doc["status"],
                 int(bool(doc["is_saved_task"])), doc.get("folder_id"), doc["created_at"],
                 json.dumps(terms), json.dumps(stored)),
            )
            doc["deleted_at"] = None
            return doc, True

    def soft_delete(self, organization_id: str, wpid: str, when: str) -> int:
        with self._transaction() as db:
            cur = db.execute(
                "UPDATE workflows SET deleted_at = ? WHERE organization_id = ? AND "
                "workflow_permanent_id = ? AND deleted_at IS NULL",
                (when, organization_id, wpid),
            )
            return cur.rowcount

    # ------------------------------------------------------------------ seeds

    def seed_hash(self, wpid: str) -> str | None:
        rows = self._query("SELECT content_hash FROM seeds WHERE workflow_permanent_id = ?", (wpid,))
        return rows[0][0] if rows else None

    def set_seed_hash(self, wpid: str, content_hash: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO seeds (workflow_permanent_id, content_hash) VALUES (?, ?)",
                       (wpid, content_hash))

    # ------------------------------------------------------------------ scripts

    def insert_script(
        self,
        organization_id: str,
        summary: dict[str, Any],
        workflow_id: str | None,
        files: Sequence[tuple[str, bytes, str | None, str, str]],
    ) -> None:
        """``files``: (path, content, mime_type, content_hash, created_at) in request order."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO scripts (script_id, organization_id, workflow_id, run_id, created_at, summary) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (summary["script_id"], organization_id, workflow_id, summary.get("run_id"),
                 summary["created_at"], json.dumps(summary)),
            )
            db.executemany(
                "INSERT INTO script_files (script_id, position, path, content, mime_type, content_hash, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(summary["script_id"], i, *f) for i, f in enumerate(files)],
            )

    def script(self, organization_id: str, script_id: str) -> dict[str, Any] | None:
        rows = self._query("SELECT summary FROM scripts WHERE organization_id = ? AND script_id = ?",
                           (organization_id, script_id))
        return json.loads(rows[0]["summary"]) if rows else None

    def script_files(self, script_id: str) -> list[tuple[str, bytes]]:
        return [(r["path"], r["content"]) for r in self._query(
            "SELECT path, content FROM script_files WHERE script_id = ? ORDER BY position", (script_id,))]
