import { randomBytes } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import { canonicalize } from './canonical.js';

/** Statuses an entry can have; COMPLETED and REJECTED are final and never overwritten. */
export const Status = Object.freeze({
  PENDING: 'PENDING',
  COMPLETED: 'COMPLETED',
  REJECTED: 'REJECTED',
  UNKNOWN: 'UNKNOWN',
});

/** Default busy timeout: 5 seconds, as the Java journal. */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

const MAX_KEY_COLLISIONS = 3;

/** The same numbered migrations as the Java client's JournalSchema: one file format for both. */
const MIGRATIONS = [
  [
    'CREATE TABLE tl_journal (' +
      ' seq INTEGER PRIMARY KEY AUTOINCREMENT,' +
      ' op_key TEXT NOT NULL UNIQUE,' +
      ' workflow_id TEXT NOT NULL,' +
      ' step_id TEXT NOT NULL,' +
      ' tool TEXT NOT NULL,' +
      ' parameters TEXT NOT NULL,' +
      ' status TEXT NOT NULL' +
      "   CHECK (status IN ('PENDING', 'COMPLETED', 'REJECTED', 'UNKNOWN'))," +
      ' response_status INTEGER,' +
      ' response_body TEXT,' +
      ' problem TEXT,' +
      ' recorded_at INTEGER NOT NULL,' +
      ' updated_at INTEGER NOT NULL,' +
      ' UNIQUE (workflow_id, step_id))',
    'CREATE INDEX tl_journal_unfinished ON tl_journal (status, seq)' +
      " WHERE status IN ('PENDING', 'UNKNOWN')",
  ],
];

/** Base class of the client's errors. */
export class ToolLedgerError extends Error {
  constructor(message, options) {
    super(message, options);
    this.name = this.constructor.name;
  }
}

/** The journal could not be read or written; nothing was sent. */
export class JournalError extends ToolLedgerError {}

/**
 * The step is journaled with another tool or other parameters (compared as RFC 8785 canonical
 * JSON). Nothing is sent. A different action is a new step.
 */
export class ActionConflictError extends ToolLedgerError {
  /** @param {JournalEntry} existing */
  constructor(existing) {
    super(
      `step ${existing.action.stepId} of workflow ${existing.action.workflowId} is journaled for` +
        ` tool ${existing.action.tool} with other parameters; a different action needs a new step`,
    );
    this.existing = existing;
  }
}

/** A new key: 24 random bytes, base64url without padding (32 characters, 192 bits). */
export function newKey() {
  return randomBytes(24).toString('base64url');
}

/**
 * @typedef {{workflowId: string, stepId: string, tool: string, parameters: unknown}} Action
 * @typedef {{
 *   key: string, action: Action, status: string,
 *   response?: {status: number, body: string}, problem?: object,
 *   recordedAt: Date, updatedAt: Date
 * }} JournalEntry
 */

/** @returns {Action} */
export function action(workflowId, stepId, tool, parameters) {
  for (const [name, v] of [['workflowId', workflowId], ['stepId', stepId], ['tool', tool]]) {
    if (typeof v !== 'string' || v.length === 0) {
      throw new TypeError(`${name} must be a non-empty string`);
    }
  }
  canonicalize(parameters); // rejects what has no JSON form before anything is journaled
  return Object.freeze({ workflowId, stepId, tool, parameters: structuredClone(parameters) });
}

/** Same tool and the same parameters as RFC 8785 canonical JSON. */
export function sameIntent(a, b) {
  return a.tool === b.tool && canonicalize(a.parameters) === canonicalize(b.parameters);
}

/**
 * The agent host's durable record of the actions it intends to take, one SQLite file (the same
 * schema as the Java client's SqliteActionJournal): record before send, one step one key forever,
 * a changed step refused, statuses kept. WAL with synchronous=FULL; every write a BEGIN IMMEDIATE
 * transaction; several processes may share the file.
 */
export class ActionJournal {
  /**
   * @param {string} path the SQLite file, created owner-read/write only if new
   * @param {{busyTimeoutMs?: number, now?: () => number, keys?: () => string}} [options]
   */
  static open(path, options = {}) {
    return new ActionJournal(path, options);
  }

  constructor(path, { busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS, now = Date.now, keys = newKey } = {}) {
    this.path = path;
    this.now = now;
    this.keys = keys;
    try {
      closeSync(openSync(path, 'a', 0o600));
      this.db = new Database(path, { timeout: busyTimeoutMs });
      const mode = this.db.pragma('journal_mode = WAL', { simple: true });
      if (String(mode).toLowerCase() !== 'wal') {
        throw new JournalError(`the journal file system does not support WAL (got ${mode})`);
      }
      this.db.pragma('synchronous = FULL');
      if (this.db.pragma('synchronous', { simple: true }) !== 2) {
        throw new JournalError('the journal could not set synchronous=FULL');
      }
      this.#migrate();
    } catch (e) {
      this.db?.close();
      if (e instanceof ToolLedgerError) throw e;
      throw new JournalError(`cannot open the action journal: ${e.message}`, { cause: e });
    }
    const columns =
      'op_key, workflow_id, step_id, tool, parameters, status, response_status, response_body,' +
      ' problem, recorded_at, updated_at';
    this.sql = {
      insert: this.db.prepare(
        'INSERT INTO tl_journal (op_key, workflow_id, step_id, tool, parameters, status,' +
          " recorded_at, updated_at) VALUES (?, ?, ?, ?, ?, 'PENDING', ?, ?)" +
          ' ON CONFLICT (workflow_id, step_id) DO NOTHING',
      ),
      byStep: this.db.prepare(
        `SELECT ${columns} FROM tl_journal WHERE workflow_id = ? AND step_id = ?`,
      ),
      byKey: this.db.prepare(`SELECT ${columns} FROM tl_journal WHERE op_key = ?`),
      entries: this.db.prepare(`SELECT ${columns} FROM tl_journal WHERE workflow_id = ? ORDER BY seq`),
      unfinished: this.db.prepare(
        `SELECT ${columns} FROM tl_journal WHERE workflow_id = ?` +
          " AND status IN ('PENDING', 'UNKNOWN') ORDER BY seq",
      ),
      workflows: this.db.prepare(
        "SELECT workflow_id FROM tl_journal WHERE status IN ('PENDING', 'UNKNOWN')" +
          ' GROUP BY workflow_id ORDER BY MIN(seq)',
      ),
      completed: this.db.prepare(
        "UPDATE tl_journal SET status = 'COMPLETED', response_status = ?, response_body = ?," +
          " updated_at = ? WHERE op_key = ? AND status IN ('PENDING', 'UNKNOWN')",
      ),
      rejected: this.db.prepare(
        "UPDATE tl_journal SET status = 'REJECTED', problem = ?, updated_at = ?" +
          " WHERE op_key = ? AND status IN ('PENDING', 'UNKNOWN')",
      ),
      unknown: this.db.prepare(
        "UPDATE tl_journal SET status = 'UNKNOWN', updated_at = ?" +
          " WHERE op_key = ? AND status IN ('PENDING', 'UNKNOWN')",
      ),
    };
  }

  #migrate() {
    for (let version = 1; version <= MIGRATIONS.length; version++) {
      this.db
        .transaction(() => {
          const current = this.db.pragma('user_version', { simple: true });
          if (current > MIGRATIONS.length) {
            throw new JournalError(
              `the action journal has schema version ${current}, newer than this client knows` +
                ` (${MIGRATIONS.length}); upgrade the client`,
            );
          }
          if (current < version) {
            for (const sql of MIGRATIONS[version - 1]) this.db.exec(sql);
            this.db.pragma(`user_version = ${version}`);
          }
        })
        .immediate();
    }
  }

  #write(what, fn) {
    try {
      return this.db.transaction(fn).immediate();
    } catch (e) {
      if (e instanceof ToolLedgerError) throw e;
      throw new JournalError(`${what} failed: ${e.code ?? e.name}`, { cause: e });
    }
  }

  #read(what, fn) {
    try {
      return fn();
    } catch (e) {
      throw new JournalError(`${what} failed: ${e.code ?? e.name}`, { cause: e });
    }
  }

  /**
   * Mints and commits a key for the step before anything is sent, or finds the step journaled.
   *
   * @param {Action} act
   * @returns {{entry: JournalEntry, isNew: boolean}}
   * @throws {ActionConflictError} the step is journaled with another tool or other parameters
   */
  record(act) {
    const parameters = JSON.stringify(act.parameters);
    for (let collisions = 0; ; collisions++) {
      const key = this.keys();
      const now = this.now();
      let existing;
      try {
        existing = this.#write('recording an action', () => {
          const inserted = this.sql.insert.run(
            key, act.workflowId, act.stepId, act.tool, parameters, now, now,
          );
          return inserted.changes === 1 ? undefined : this.sql.byStep.get(act.workflowId, act.stepId);
        });
      } catch (e) {
        if (e.cause?.code === 'SQLITE_CONSTRAINT_UNIQUE' && collisions < MAX_KEY_COLLISIONS) {
          continue; // a minted key already exists: astronomically unlikely, but mint another
        }
        throw e;
      }
      if (existing === undefined) {
        const at = new Date(now);
        return {
          entry: Object.freeze({ key, action: act, status: Status.PENDING, recordedAt: at, updatedAt: at }),
          isNew: true,
        };
      }
      const entry = toEntry(existing);
      if (!sameIntent(entry.action, act)) {
        throw new ActionConflictError(entry);
      }
      return { entry, isNew: false };
    }
  }

  /** @returns {JournalEntry | undefined} */
  find(workflowId, stepId) {
    const row = this.#read('reading an action', () => this.sql.byStep.get(workflowId, stepId));
    return row && toEntry(row);
  }

  /** @returns {JournalEntry | undefined} */
  findKey(key) {
    const row = this.#read('reading an action', () => this.sql.byKey.get(key));
    return row && toEntry(row);
  }

  /** Every entry of a workflow in the order it was recorded: the journal explains each step. */
  entries(workflowId) {
    return this.#read('reading a workflow', () => this.sql.entries.all(workflowId)).map(toEntry);
  }

  /** PENDING and UNKNOWN entries of a workflow, in the order they were recorded. */
  unfinished(workflowId) {
    return this.#read('reading a workflow', () => this.sql.unfinished.all(workflowId)).map(toEntry);
  }

  /** Workflows with at least one PENDING or UNKNOWN entry. */
  workflowsWithUnfinishedActions() {
    return this.#read('listing workflows', () => this.sql.workflows.all()).map((r) => r.workflow_id);
  }

  /** @param {{status: number, body: string}} response the body as JSON text */
  markCompleted(key, response) {
    return this.#mark(key, (now) => this.sql.completed.run(response.status, response.body, now, key));
  }

  markRejected(key, problemDocument) {
    return this.#mark(key, (now) => this.sql.rejected.run(JSON.stringify(problemDocument), now, key));
  }

  markUnknown(key) {
    return this.#mark(key, (now) => this.sql.unknown.run(now, key));
  }

  #mark(key, update) {
    return this.#write("updating an action's status", () => {
      update(this.now());
      const row = this.sql.byKey.get(key);
      if (!row) throw new JournalError('no action with this key is in the journal');
      return toEntry(row);
    });
  }

  close() {
    if (this.db.open) this.db.close();
  }

  toString() {
    return `ActionJournal[${this.path}]`;
  }
}

function toEntry(row) {
  const entry = {
    key: row.op_key,
    action: Object.freeze({
      workflowId: row.workflow_id,
      stepId: row.step_id,
      tool: row.tool,
      parameters: JSON.parse(row.parameters),
    }),
    status: row.status,
    recordedAt: new Date(row.recorded_at),
    updatedAt: new Date(row.updated_at),
  };
  if (row.response_status !== null && row.response_status !== undefined) {
    entry.response = { status: row.response_status, body: row.response_body };
  }
  if (row.problem) entry.problem = JSON.parse(row.problem);
  return Object.freeze(entry);
}
