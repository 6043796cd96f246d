// Against a real node and the testkit's LossyProxy, both started by the Maven harness.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MemorySaver } from '@langchain/langgraph';
import { ActionConflictError, ActionJournal, ToolLedgerClient, Status } from '../src/index.js';
import { ask, buildAgent, fastRetries, toolResults } from '../examples/agent.js';
import { live, notesTitled, operation, proxy, skipLive, unique } from './support/env.js';

const dir = mkdtempSync(join(tmpdir(), 'tl-live-'));
let files = 0;
const file = (name) => join(dir, `${files++}-${name}`);
const AGENT = fileURLToPath(new URL('./support/agent-process.js', import.meta.url));

describe('the client against a real node', { skip: skipLive }, () => {
  beforeEach(() => proxy.reset());

  test('a lost answer after the commit is retried with the same key: one note, recorded outcome', async () => {
    const journal = ActionJournal.open(file('journal.db'));
    const client = new ToolLedgerClient({ journal, baseUrl: live.lossyUrl, token: live.token, retryPolicy: fastRetries() });
    const title = unique('lost answer');
    const before = await proxy.stats();
    await proxy.dropNext(1);
    const outcome = await client.execute('run-1', 'step-1', 'create-note', { title });
    assert.equal(outcome.kind, 'completed');
    assert.equal(outcome.replayed, true, 'the retry was answered by a replay');
    const after = await proxy.stats();
    assert.equal(after.posts - before.posts, 2, 'the first attempt and one retry');
    assert.equal(after.dropped - before.dropped, 1);
    const notes = await notesTitled(title);
    assert.equal(notes.length, 1);
    assert.equal(outcome.body.id, notes[0].id);
    // A second call of the step is answered by the journal; nothing is sent.
    const again = await client.execute('run-1', 'step-1', 'create-note', { title });
    assert.deepEqual([again.key, again.body], [outcome.key, outcome.body]);
    assert.equal((await proxy.stats()).posts, after.posts);
    journal.close();
  });

  test('changed parameters under a journaled step are refused and nothing is sent', async () => {
    const journal = ActionJournal.open(file('journal.db'));
    const client = new ToolLedgerClient({ journal, baseUrl: live.lossyUrl, token: live.token, retryPolicy: fastRetries() });
    const title = unique('conflict');
    await client.execute('run', 'step', 'create-note', { title });
    const before = await proxy.stats();
    await assert.rejects(client.execute('run', 'step', 'create-note', { title: `${title}!` }), ActionConflictError);
    assert.equal((await proxy.stats()).posts, before.posts);
    assert.equal((await notesTitled(`${title}!`)).length, 0);
    journal.close();
  });

  test('invalid parameters are rejected after one request and stay rejected from the journal', async () => {
    const journal = ActionJournal.open(file('journal.db'));
    const client = new ToolLedgerClient({ journal, baseUrl: live.lossyUrl, token: live.token, retryPolicy: fastRetries() });
    const before = await proxy.stats();
    const outcome = await client.execute('run', 'bad', 'create-note', { title: '' });
    assert.equal(outcome.kind, 'rejected');
    assert.equal(outcome.problem.slug, 'invalid-parameters');
    assert.equal(outcome.problem.status, 400);
    assert.equal((await proxy.stats()).posts - before.posts, 1);
    assert.equal((await client.execute('run', 'bad', 'create-note', { title: '' })).kind, 'rejected');
    assert.equal((await proxy.stats()).posts - before.posts, 1);
    journal.close();
  });

  test('a dead endpoint ends unknown, and resume settles it with the same key once the node is reachable', async () => {
    const path = file('journal.db');
    let journal = ActionJournal.open(path);
    const dead = new ToolLedgerClient({
      journal,
      baseUrl: 'http://127.0.0.1:9', // discard port: connection refused
      token: live.token,
      retryPolicy: fastRetries(),
    });
    const title = unique('unknown then resumed');
    const first = await dead.execute('run-u', 's', 'create-note', { title });
    assert.equal(first.kind, 'unknown');
    assert.equal(journal.find('run-u', 's').status, Status.UNKNOWN);
    journal.close();
    journal = ActionJournal.open(path);
    const client = new ToolLedgerClient({ journal, baseUrl: live.url, token: live.token, retryPolicy: fastRetries() });
    assert.deepEqual(journal.workflowsWithUnfinishedActions(), ['run-u']);
    const [resumed] = await client.resume('run-u');
    assert.equal(resumed.key, first.key);
    assert.equal(resumed.outcome.kind, 'completed');
    assert.equal((await notesTitled(title)).length, 1);
    assert.equal((await client.lookup(first.key)).state, 'COMPLETED');
    journal.close();
  });
});

/** Runs the agent in its own process; resolves with its exit and its last stdout line. */
function agentProcess(env, { onStart } = {}) {
  const child = spawn(process.execPath, [AGENT], {
    env: { ...process.env, BASE_URL: live.lossyUrl, TOKEN: live.token, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  onStart?.(child);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const last = out.trim().split('\n').at(-1);
      resolve({ code, signal, err, result: code === 0 ? JSON.parse(last) : undefined });
    });
  });
}

async function until(what, check, ms = 20_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Starts an agent, holds its first create's answer after the commit, and SIGKILLs it then. */
async function killAfterCommit(env) {
  const before = await proxy.stats();
  await proxy.holdNext();
  const run = agentProcess(env, {
    onStart: (child) =>
      until('the committed create to be held', async () => (await proxy.stats()).held === 1).then(() =>
        child.kill('SIGKILL'),
      ),
  });
  const killed = await run;
  await proxy.release();
  assert.equal(killed.signal, 'SIGKILL', killed.err);
  await until('the held answer to be dropped', async () => (await proxy.stats()).held === 0);
  return before;
}

describe('LangGraph.js: keys from the graph durable identity', { skip: skipLive }, () => {
  beforeEach(() => proxy.reset());
  after(() => proxy.reset());

  test('a lost answer inside a graph run: one note, the model is told the recorded result', async () => {
    const { graph, journal } = buildAgent({ baseUrl: live.lossyUrl, token: live.token, journalPath: file('journal.db'), checkpointer: new MemorySaver() });
    const title = unique('graph lost answer');
    await proxy.dropNext(1);
    const state = await graph.invoke(ask(`create note: ${title}`), { configurable: { thread_id: 'thread-lost' } });
    const [told] = toolResults(state);
    const notes = await notesTitled(title);
    assert.equal(notes.length, 1);
    assert.deepEqual([told.outcome, told.replayed, told.result.id], ['completed', true, notes[0].id]);
    const [entry] = journal.entries('thread-lost');
    assert.match(entry.action.stepId, /^tools:[0-9a-f-]{36}#call-0$/);
    assert.equal(entry.status, Status.COMPLETED);
    journal.close();
  });

  test('killed with SIGKILL after the commit, resumed from the SQLite checkpoint: same key, no second POST, one note', async () => {
    const env = { JOURNAL: file('journal.db'), CHECKPOINTS: file('checkpoints.db'), THREAD: 'thread-kill', PROMPT: `create note: ${unique('killed')}` };
    const title = env.PROMPT.split(': ')[1];
    const before = await killAfterCommit({ ...env, MODE: 'start' });
    const held = await proxy.stats();
    assert.equal(held.posts - before.posts, 1, 'one create reached the node before the kill');
    const journal = ActionJournal.open(env.JOURNAL);
    const [pending] = journal.entries('thread-kill');
    assert.equal(pending.status, Status.PENDING, 'the key was journaled before the send');
    assert.equal((await operation(pending.key)).state, 'COMPLETED', 'the node committed under that key');
    journal.close();

    const resumed = await agentProcess({ ...env, MODE: 'resume' });
    assert.equal(resumed.code, 0, resumed.err);
    assert.equal((await proxy.stats()).posts, held.posts, 'the resumed run looked the key up; no second POST');
    const notes = await notesTitled(title);
    assert.equal(notes.length, 1);
    const [told] = resumed.result.told;
    assert.deepEqual([told.outcome, told.replayed, told.result.id], ['completed', true, notes[0].id]);
    const finalTold = JSON.parse(JSON.parse(resumed.result.final.replace('Tool results: ', ''))[0]);
    assert.equal(finalTold.result.id, notes[0].id, "the model's answer uses the recorded note");
    assert.deepEqual(resumed.result.entries, [{ key: pending.key, stepId: pending.action.stepId, status: 'COMPLETED' }]);
  });

  test('resumed with changed arguments for the same step: refused, nothing sent, the model told so', async () => {
    const env = { JOURNAL: file('journal.db'), CHECKPOINTS: file('checkpoints.db'), THREAD: 'thread-edit', PROMPT: `create note: ${unique('edited')}` };
    const title = env.PROMPT.split(': ')[1];
    await killAfterCommit({ ...env, MODE: 'start' });
    const held = await proxy.stats();
    const resumed = await agentProcess({ ...env, MODE: 'resume', EDIT_TITLE: 'true' });
    assert.equal(resumed.code, 0, resumed.err);
    assert.equal((await proxy.stats()).posts, held.posts, 'nothing sent');
    const [told] = resumed.result.told;
    assert.equal(told.outcome, 'rejected');
    assert.match(told.problem.type, /idempotency-key-reused$/);
    assert.equal((await notesTitled(`${title} (edited)`)).length, 0);
    assert.equal((await notesTitled(title)).length, 1);
    assert.equal(resumed.result.entries[0].status, 'PENDING', 'the journaled step keeps its own arguments and key');
  });

  test('a new run with identical arguments is a new action; two identical calls in one run are two actions', async () => {
    const { graph, journal } = buildAgent({ baseUrl: live.lossyUrl, token: live.token, journalPath: file('journal.db'), checkpointer: new MemorySaver() });
    const title = unique('same title');
    await graph.invoke(ask(`create note: ${title}`), { configurable: { thread_id: 'run-a' } });
    await graph.invoke(ask(`create note: ${title}`), { configurable: { thread_id: 'run-b' } });
    await graph.invoke(ask(`create note: ${title}`), { configurable: { thread_id: 'run-b' } }); // next turn
    const twice = await graph.invoke(ask(`create twice: ${title}`), { configurable: { thread_id: 'run-c' } });
    assert.deepEqual(toolResults(twice).map((t) => [t.outcome, t.replayed]), [['completed', false], ['completed', false]]);
    const entries = ['run-a', 'run-b', 'run-c'].flatMap((t) => journal.entries(t));
    assert.equal(entries.length, 5);
    assert.equal(new Set(entries.map((e) => e.key)).size, 5);
    assert.equal((await notesTitled(title)).length, 5);
    // The journal explains every step: step, tool, parameters, key, status and the recorded response.
    for (const e of entries) {
      assert.equal(e.status, Status.COMPLETED);
      assert.deepEqual([e.action.tool, e.action.parameters], ['create-note', { title }]);
      assert.equal(JSON.parse(e.response.body).title, title);
      assert.equal((await operation(e.key)).state, 'COMPLETED');
    }
    assert.deepEqual(journal.entries('run-c').map((e) => e.action.stepId.split('#')[1]), ['call-0', 'call-1']);
    journal.close();
  });
});
