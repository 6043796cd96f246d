"""The agent host's durable record of the actions it intends to take: one SQLite file.

The same schema as the Java client's SqliteActionJournal and the TypeScript client's
ActionJournal, so one file format serves all three.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Optional

from .canonical import canonicalize
from .errors import JournalError, ToolLedgerError

PENDING, COMPLETED, REJECTED, UNKNOWN = "PENDING", "COMPLETED", "REJECTED", "UNKNOWN"
FINAL = (COMPLETED, REJECTED)
DEFAULT_BUSY_TIMEOUT_S = 5.0
_MAX_KEY_COLLISIONS = 3

_MIGRATIONS = [
    [
        "CREATE TABLE tl_journal ("
        " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        " op_key TEXT NOT NULL UNIQUE,"
        " workflow_id TEXT NOT NULL,"
        " step_id TEXT NOT NULL,"
        " tool TEXT NOT NULL,"
        " parameters TEXT NOT NULL,"
        " status TEXT NOT NULL"
        "   CHECK (status IN ('PENDING', 'COMPLETED', 'REJECTED', 'UNKNOWN')),"
        " response_status INTEGER,"
        " response_body TEXT,"
        " problem TEXT,"
        " recorded_at INTEGER NOT NULL,"
        " updated_at INTEGER NOT NULL,"
        " UNIQUE (workflow_id, step_id))",
        "CREATE INDEX tl_journal_unfinished ON tl_journal (status, seq)"
        " WHERE status IN ('PENDING', 'UNKNOWN')",
    ]
]
_COLUMNS = (
    "op_key, workflow_id, step_id, tool, parameters, status, response_status, response_body,"
    " problem, recorded_at, updated_at"
)


def new_key() -> str:
    """24 random bytes, base64url without padding: 32 characters, 192 bits."""
    return base64.urlsafe_b64encode(secrets.token_bytes(24)).decode("ascii").rstrip("=")


@dataclass(frozen=True)
class Action:
    """A (workflow, step, tool, parameters) tuple. The host names workflow and step, never the model."""

    workflow_id: str
    step_id: str
    tool: str
    parameters: Any

    def __post_init__(self) -> None:
        for name in ("workflow_id", "step_id", "tool"):
            v = getattr(self, name)
            if not isinstance(v, str) or not v:
                raise ValueError(f"{name} must be a non-empty string")
        canonicalize(self.parameters)  # refuses what has no JSON form before anything is journaled

    def same_intent_as(self, other: "Action") -> bool:
        """Same tool, and the same parameters as RFC 8785 canonical JSON."""
        return self.tool == other.tool and canonicalize(self.parameters) == canonicalize(other.parameters)

    def __repr__(self) -> str:  # parameters may be sensitive
        return f"Action(workflow_id={self.workflow_id!r}, step_id={self.step_id!r}, tool={self.tool!r})"


@dataclass(frozen=True)
class Step:
    """A durable step identity: what `ActionJournal.step(run_id, n)` names."""

    workflow_id: str
    step_id: str


@dataclass(frozen=True)
class JournalEntry:
    key: str
    action: Action
    status: str
    recorded_at: datetime
    updated_at: datetime
    response_status: Optional[int] = None
    response_body: Optional[str] = None
    problem: Optional[dict] = field(default=None)

    @property
    def is_final(self) -> bool:
        return self.status in FINAL

    def __repr__(self) -> str:  # neither parameters nor bodies
        return f"JournalEntry(step={self.action.step_id!r}, tool={self.action.tool!r}, status={self.status})"


class ActionJournal:
    """Record before send, one step one key forever, a changed step refused, statuses kept.

    WAL with synchronous=FULL, every write a BEGIN IMMEDIATE transaction; several processes may
    share the file. The file holds parameters and responses in clear text; it is created
    owner-read/write only.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        busy_timeout_s: float = DEFAULT_BUSY_TIMEOUT_S,
        now: Callable[[], float] = time.time,
        keys: Callable[[], str] = new_key,
    ) -> None:
        self.path = os.fspath(path)
        self._now = now
        self._keys = keys
        self._lock = threading.RLock()
        try:
            os.close(os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600))
            self._db = sqlite3.connect(
                self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
            )
            mode = self._db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise JournalError(f"the journal file system does not support WAL (got {mode})")
            self._db.execute("PRAGMA synchronous = FULL")
            if self._db.execute("PRAGMA synchronous").fetchone()[0] != 2:
                raise JournalError("the journal could not set synchronous=FULL")
            self._migrate()
        except sqlite3.Error as e:
            raise JournalError(f"cannot open the action journal: {e.__class__.__name__}") from e

    @classmethod
    def open(cls, path: str | os.PathLike, **options: Any) -> "ActionJournal":
        return cls(path, **options)

    def __enter__(self) -> "ActionJournal":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _migrate(self) -> None:
        for version in range(1, len(_MIGRATIONS) + 1):
            def apply(c: sqlite3.Connection, version: int = version) -> None:
                current = c.execute("PRAGMA user_version").fetchone()[0]
                if current > len(_MIGRATIONS):
                    raise JournalError(
                        f"the action journal has schema version {current}, newer than this client"
                        f" knows ({len(_MIGRATIONS)}); upgrade the client"
                    )
                if current < version:
                    for sql in _MIGRATIONS[version - 1]:
                        c.execute(sql)
                    c.execute(f"PRAGMA user_version = {version}")

            self._write("migrating the journal", apply)

    def _write(self, what: str, fn: Callable[[sqlite3.Connection], Any]) -> Any:
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    result = fn(self._db)
                    self._db.execute("COMMIT")
                    return result
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.IntegrityError:
                raise
            except sqlite3.Error as e:
                raise JournalError(f"{what} failed: {e.__class__.__name__}") from e

    def _read(self, what: str, sql: str, *args: Any) -> list:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as e:
                raise JournalError(f"{what} failed: {e.__class__.__name__}") from e

    @staticmethod
    def step(run_id: str, n: int) -> Step:
        """The durable identity of the n-th action of a run, for a hand-written agent loop.

        Keep `run_id` and `n` in the loop's own saved state, and save that state before the
        action is executed; a loop restarted from its state then names the same step, and the
        journal answers with the same key. A new run is a new `run_id`; a second deliberate call
        within a run is the next `n`.
        """
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise ValueError("n must be a non-negative integer")
        return Step(workflow_id=str(run_id), step_id=f"step-{n}")

    def record(self, action: Action) -> tuple[JournalEntry, bool]:
        """Mints and commits a key for the step before anything is sent, or finds it journaled.

        Returns (entry, is_new). Raises ActionConflictError when the step is journaled with
        another tool or other parameters.
        """
        parameters = json.dumps(action.parameters, ensure_ascii=False, separators=(",", ":"))
        collisions = 0
        while True:
            key = self._keys()
            now = int(self._now() * 1000)

            def insert(c: sqlite3.Connection) -> Optional[tuple]:
                cur = c.execute(
                    "INSERT INTO tl_journal (op_key, workflow_id, step_id, tool, parameters, status,"
                    " recorded_at, updated_at) VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?)"
                    " ON CONFLICT (workflow_id, step_id) DO NOTHING",
                    (key, action.workflow_id, action.step_id, action.tool, parameters, now, now),
                )
                if cur.rowcount == 1:
                    return None
                return c.execute(
                    f"SELECT {_COLUMNS} FROM tl_journal WHERE workflow_id = ? AND step_id = ?",
                    (action.workflow_id, action.step_id),
                ).fetchone()

            try:
                existing = self._write("recording an action", insert)
            except sqlite3.IntegrityError as e:
                collisions += 1
                if collisions <= _MAX_KEY_COLLISIONS:
                    continue  # a minted key already exists: astronomically unlikely, mint another
                raise JournalError("recording an action failed: key collisions") from e
            if existing is None:
                at = datetime.fromtimestamp(now / 1000, tz=timezone.utc)
                return JournalEntry(key, action, PENDING, at, at), True
            entry = _entry(existing)
            if not entry.action.same_intent_as(action):
                raise ActionConflictError(entry)
            return entry, False

    def find(self, workflow_id: str, step_id: str) -> Optional[JournalEntry]:
        rows = self._read(
            "reading an action",
            f"SELECT {_COLUMNS} FROM tl_journal WHERE workflow_id = ? AND step_id = ?",
            workflow_id,
            step_id,
        )
        return _entry(rows[0]) if rows else None

    def find_key(self, key: str) -> Optional[JournalEntry]:
        rows = self._read("reading an action", f"SELECT {_COLUMNS} FROM tl_journal WHERE op_key = ?", key)
        return _entry(rows[0]) if rows else None

    def entries(self, workflow_id: str) -> list[JournalEntry]:
        """Every entry of a workflow, in recording order: the journal explains each step."""
        return [
            _entry(r)
            for r in self._read(
                "reading a workflow",
                f"SELECT {_COLUMNS} FROM tl_journal WHERE workflow_id = ? ORDER BY seq",
                workflow_id,
            )
        ]

    def unfinished(self, workflow_id: str) -> list[JournalEntry]:
        """PENDING and UNKNOWN entries of a workflow, in recording order."""
        return [
            _entry(r)
            for r in self._read(
                "reading a workflow",
                f"SELECT {_COLUMNS} FROM tl_journal WHERE workflow_id = ?"
                " AND status IN ('PENDING', 'UNKNOWN') ORDER BY seq",
                workflow_id,
            )
        ]

    def workflows_with_unfinished_actions(self) -> list[str]:
        return [
            r[0]
            for r in self._read(
                "listing workflows",
                "SELECT workflow_id FROM tl_journal WHERE status IN ('PENDING', 'UNKNOWN')"
                " GROUP BY workflow_id ORDER BY MIN(seq)",
            )
        ]

    def mark_completed(self, key: str, status: int, body: str) -> JournalEntry:
        return self._mark(
            key, "status = 'COMPLETED', response_status = ?, response_body = ?", (status, body)
        )

    def mark_rejected(self, key: str, problem: dict) -> JournalEntry:
        return self._mark(key, "status = 'REJECTED', problem = ?", (json.dumps(problem),))

    def mark_unknown(self, key: str) -> JournalEntry:
        return self._mark(key, "status = 'UNKNOWN'", ())

    def _mark(self, key: str, assignments: str, args: tuple) -> JournalEntry:
        now = int(self._now() * 1000)

        def update(c: sqlite3.Connection) -> tuple:
            c.execute(
                f"UPDATE tl_journal SET {assignments}, updated_at = ? WHERE op_key = ?"
                " AND status IN ('PENDING', 'UNKNOWN')",
                (*args, now, key),
            )
            row = c.execute(f"SELECT {_COLUMNS} FROM tl_journal WHERE op_key = ?", (key,)).fetchone()
            if row is None:
                raise JournalError("no action with this key is in the journal")
            return row

        return _entry(self._write("updating an action's status", update))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __repr__(self) -> str:
        return f"ActionJournal({self.path!r})"


def _entry(row: tuple) -> JournalEntry:
    (key, workflow_id, step_id, tool, parameters, status, response_status, response_body, problem,
     recorded_at, updated_at) = row
    return JournalEntry(
        key=key,
        action=Action(workflow_id, step_id, tool, json.loads(parameters)),
        status=status,
        recorded_at=datetime.fromtimestamp(recorded_at / 1000, tz=timezone.utc),
        updated_at=datetime.fromtimestamp(updated_at / 1000, tz=timezone.utc),
        response_status=response_status,
        response_body=response_body,
        problem=json.loads(problem) if problem else None,
    )


class ActionConflictError(ToolLedgerError):
    """The step is journaled with another tool or other parameters; nothing was sent.

    A different action is a new step.
    """

    def __init__(self, existing: JournalEntry) -> None:
        a = existing.action
        super().__init__(
            f"step {a.step_id} of workflow {a.workflow_id} is journaled for tool {a.tool} with"
            " other parameters; a different action needs a new step"
        )
        self.existing = existing
