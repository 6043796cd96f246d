import assert from 'node:assert/strict';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ActionConflictError, ActionJournal, action, Status } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tl-journal-'));
let n = 0;
const file = () => join(dir, `journal-${n++}.db`);

test('record mints a 32-character base64url key before sending, and the same step keeps it across a reopen', () => {
  const path = file();
  let journal = ActionJournal.open(path);
  const first = journal.record(action('run-1', 'step-1', 'create-note', { title: 'a' }));
  assert.equal(first.isNew, true);
  assert.match(first.entry.key, /^[A-Za-z0-9_-]{32}$/);
  assert.equal(journal.find('run-1', 'step-1').status, Status.PENDING);
  journal.close();
  journal = ActionJournal.open(path);
  const again = journal.record(action('run-1', 'step-1', 'create-note', { title: 'a' }));
  assert.equal(again.isNew, false);
  assert.equal(again.entry.key, first.entry.key);
  assert.deepEqual(journal.workflowsWithUnfinishedActions(), ['run-1']);
  journal.close();
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('the same step with other parameters is refused; key order and 1.0 are not a change', () => {
  const journal = ActionJournal.open(file());
  journal.record(action('run', 's', 'create-note', { title: 'a', n: 1 }));
  assert.equal(journal.record(action('run', 's', 'create-note', { n: 1.0, title: 'a' })).isNew, false);
  assert.throws(() => journal.record(action('run', 's', 'create-note', { title: 'b', n: 1 })), ActionConflictError);
  assert.throws(() => journal.record(action('run', 's', 'other-tool', { title: 'a', n: 1 })), ActionConflictError);
  journal.close();
});

test('identical parameters under new steps or new workflows are new actions with new keys', () => {
  const journal = ActionJournal.open(file());
  const keys = new Set(
    [
      ['run', 's1'],
      ['run', 's2'],
      ['other', 's1'],
    ].map(([w, s]) => journal.record(action(w, s, 'create-note', { title: 'same' })).entry.key),
  );
  assert.equal(keys.size, 3);
  journal.close();
});

test('final statuses are never overwritten; unfinished lists PENDING and UNKNOWN in recording order', () => {
  const journal = ActionJournal.open(file());
  const a = journal.record(action('w', '1', 't', {})).entry.key;
  const b = journal.record(action('w', '2', 't', {})).entry.key;
  const c = journal.record(action('w', '3', 't', {})).entry.key;
  journal.markCompleted(a, { status: 201, body: '{"id":1}' });
  journal.markUnknown(b);
  journal.markRejected(c, { type: 'about:blank', status: 400 });
  journal.markUnknown(a); // ignored: COMPLETED is final
  assert.equal(journal.findKey(a).status, Status.COMPLETED);
  assert.deepEqual(journal.findKey(a).response, { status: 201, body: '{"id":1}' });
  assert.deepEqual(journal.unfinished('w').map((e) => e.key), [b]);
  assert.deepEqual(journal.findKey(c).problem, { type: 'about:blank', status: 400 });
  journal.close();
});

test('two journals on one file agree on one key per step (the unique constraint decides)', () => {
  const path = file();
  const one = ActionJournal.open(path);
  const two = ActionJournal.open(path);
  const k1 = one.record(action('w', 's', 't', { x: 1 })).entry.key;
  const k2 = two.record(action('w', 's', 't', { x: 1 }));
  assert.equal(k2.isNew, false);
  assert.equal(k2.entry.key, k1);
  one.close();
  two.close();
});
