import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Retrier, RetryPolicy, retryAfterMs, toolAnswer, lookupAnswer } from '../src/index.js';

/** Fake time: sleeping moves the clock. */
function fakeTime(seed = 1) {
  let now = 0;
  let s = seed;
  const sleeps = [];
  return {
    sleeps,
    options: {
      now: () => now,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
      random: () => ((s = (s * 16807) % 2147483647) / 2147483647),
    },
  };
}

test('every backoff is within the full-jitter bound and no sleep reaches the deadline', async () => {
  for (let seed = 1; seed <= 200; seed++) {
    const t = fakeTime(seed);
    const p = new RetryPolicy({ ...t.options, maxAttempts: 8, deadlineMs: 3000, backoffBaseMs: 100, backoffMaxMs: 1000, budgetTokens: 1000 });
    const r = await new Retrier(p).run(async () => ({ retry: 'down' }));
    assert.ok('gaveUp' in r);
    t.sleeps.forEach((ms, i) => assert.ok(ms >= 0 && ms <= Math.min(1000, 100 * 2 ** i), `sleep ${i}: ${ms}`));
    assert.ok(t.sleeps.reduce((a, b) => a + b, 0) < 3000);
  }
});

test('a definitive answer is never retried; Retry-After past the deadline stops at once', async () => {
  const t = fakeTime();
  let calls = 0;
  const r = await new Retrier(new RetryPolicy(t.options)).run(async () => (calls++, { done: 'x' }));
  assert.deepEqual([r.answered, calls], ['x', 1]);
  const r2 = await new Retrier(new RetryPolicy({ ...t.options, deadlineMs: 5000 })).run(async () => ({ retry: 'busy', retryAfterMs: 10_000 }));
  assert.equal(r2.gaveUp, 'RETRY_AFTER_PAST_DEADLINE');
  assert.equal(r2.attempts, 1);
});

test('the budget caps retries across calls at tokens minus floor', async () => {
  const t = fakeTime();
  const retrier = new Retrier(new RetryPolicy({ ...t.options, deadlineMs: 1e9 }));
  let attempts = 0;
  for (let i = 0; i < 50; i++) await retrier.run(async () => (attempts++, { retry: 'down' }));
  assert.equal(attempts, 50 + 10);
});

test('bad options are refused by name', () => {
  assert.throws(() => new RetryPolicy({ maxAttempts: 0 }), /maxAttempts/);
  assert.throws(() => new RetryPolicy({ budgetFloor: 30 }), /budgetFloor/);
  assert.throws(() => new RetryPolicy({ backoffBaseMs: 10, backoffMaxMs: 5 }), /backoffMaxMs/);
});

test('the answer table: recorded outcomes, retried answers, unknown and rejected', () => {
  const h = (headers) => (name) => headers[name] ?? null;
  const problem = (slug, status) => JSON.stringify({ type: `https://toolledger.dev/problems/${slug}`, title: slug, status, detail: 'd' });
  assert.equal(toolAnswer('k', 409, h({ 'idempotent-replayed': 'true' }), '{"q":1}').done.replayed, true);
  assert.equal(toolAnswer('k', 201, h({ 'idempotent-replayed': 'false' }), '{}').done.kind, 'completed');
  assert.equal(toolAnswer('k', 422, h({ 'idempotent-replayed': 'false' }), '{}').done.isSuccess, false);
  assert.equal(toolAnswer('k', 503, h({ 'retry-after': '2' }), problem('ledger-busy', 503)).retryAfterMs, 2000);
  assert.ok('retry' in toolAnswer('k', 409, h({}), problem('operation-in-progress', 409)));
  assert.ok('retry' in toolAnswer('k', 429, h({}), problem('rate-limited', 429)));
  assert.ok('retry' in toolAnswer('k', 502, h({}), '<html>bad gateway</html>'));
  assert.equal(toolAnswer('k', 409, h({}), problem('outcome-unknown', 409)).done.kind, 'unknown');
  assert.equal(toolAnswer('k', 410, h({}), problem('operation-expired', 410)).done.kind, 'unknown');
  assert.equal(toolAnswer('k', 200, h({}), '{}').done.kind, 'unknown');
  assert.equal(toolAnswer('k', 500, h({}), problem('response-too-large', 500)).done.kind, 'rejected');
  const reused = toolAnswer('k', 422, h({}), problem('idempotency-key-reused', 422)).done;
  assert.equal(reused.kind, 'rejected');
  assert.equal(reused.problem.slug, 'idempotency-key-reused');
  for (const s of [400, 401, 403, 404, 413, 415]) assert.equal(toolAnswer('k', s, h({}), '').done.kind, 'rejected');
  assert.equal(lookupAnswer('k', 404, h({}), '').done.kind, 'not-found');
  assert.ok('retry' in lookupAnswer('k', 503, h({}), ''));
  assert.equal(lookupAnswer('k', 401, h({}), '').done.kind, 'unavailable');
});

test('Retry-After takes seconds or an HTTP-date', () => {
  assert.equal(retryAfterMs('3'), 3000);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
  assert.equal(retryAfterMs('soon'), undefined);
});
