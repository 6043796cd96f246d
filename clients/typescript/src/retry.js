import { setTimeout as delay } from 'node:timers/promises';

/**
 * The client's one retrying layer, as the Java client's RetryPolicy (docs/client.md): full jitter,
 * a deadline from the first attempt, `Retry-After` waited out in full or not at all, and a token
 * bucket shared by all calls of one client.
 *
 * Defaults: maxAttempts 5; deadlineMs 30 000; backoff base 200 ms, max 5 000 ms; budget 20 tokens,
 * floor 10, refund 0.1 per definitive answer.
 */
export const RETRY_DEFAULTS = Object.freeze({
  maxAttempts: 5,
  deadlineMs: 30_000,
  backoffBaseMs: 200,
  backoffMaxMs: 5_000,
  budgetTokens: 20,
  budgetFloor: 10,
  budgetRefund: 0.1,
});

export class RetryPolicy {
  /**
   * @param {Partial<typeof RETRY_DEFAULTS> & {
   *   now?: () => number, sleep?: (ms: number) => Promise<void>, random?: () => number
   * }} [options] a bad or conflicting option is refused, naming it
   */
  constructor(options = {}) {
    const o = { ...RETRY_DEFAULTS, ...options };
    const positiveInt = (n) => {
      if (!Number.isInteger(o[n]) || o[n] < 1) throw new RangeError(`${n} must be an integer of at least 1`);
    };
    const nonNegative = (n) => {
      if (typeof o[n] !== 'number' || !(o[n] >= 0)) throw new RangeError(`${n} must not be negative`);
    };
    positiveInt('maxAttempts');
    if (!(o.deadlineMs > 0)) throw new RangeError('deadlineMs must be positive');
    nonNegative('backoffBaseMs');
    nonNegative('backoffMaxMs');
    if (o.backoffMaxMs < o.backoffBaseMs) throw new RangeError('backoffMaxMs must not be below backoffBaseMs');
    nonNegative('budgetTokens');
    nonNegative('budgetFloor');
    nonNegative('budgetRefund');
    if (o.budgetFloor > o.budgetTokens) throw new RangeError('budgetFloor must not exceed budgetTokens');
    Object.assign(this, o);
    this.now = options.now ?? (() => performance.now());
    this.sleep = options.sleep ?? ((ms) => delay(ms));
    this.random = options.random ?? Math.random;
    Object.freeze(this);
  }

  /** Full jitter before retry n (0-based): random(0, min(max, base * 2^n)). */
  jitteredBackoffMs(n) {
    const cap = Math.min(this.backoffMaxMs, this.backoffBaseMs * 2 ** Math.min(n, 52));
    return this.random() * cap;
  }
}

/** The token bucket: retries take 1, answers put back the refund, none while at or below the floor. */
class RetryBudget {
  constructor(capacity, floor, refund) {
    Object.assign(this, { capacity, floor, refund, tokens: capacity });
  }
  tryAcquire() {
    if (this.tokens <= this.floor) return false;
    this.tokens = Math.max(0, this.tokens - 1);
    return true;
  }
  onAnswer() {
    this.tokens = Math.min(this.capacity, this.tokens + this.refund);
  }
}

/**
 * An attempt's result: `{done: value}` for a definitive answer (never retried) or
 * `{retry: reason, retryAfterMs?}` for what is safe and useful to try again.
 * @typedef {{done: any} | {retry: string, retryAfterMs?: number}} AttemptResult
 */

/** Runs attempts under a policy and owns its budget. Share one per service. */
export class Retrier {
  /** @param {RetryPolicy} policy */
  constructor(policy = new RetryPolicy()) {
    this.policy = policy;
    this.budget = new RetryBudget(policy.budgetTokens, policy.budgetFloor, policy.budgetRefund);
  }

  get budgetTokens() {
    return this.budget.tokens;
  }

  /**
   * @param {(attempt: number, remainingMs: number) => Promise<AttemptResult>} attempt
   * @returns {Promise<{answered: any, attempts: number} | {gaveUp: string, reason: string, attempts: number}>}
   */
  async run(attempt) {
    const p = this.policy;
    const deadline = p.now() + p.deadlineMs;
    let last = '';
    for (let number = 1; ; number++) {
      const remaining = deadline - p.now();
      if (remaining <= 0) return gaveUp('DEADLINE_REACHED', last, number - 1);
      const result = await attempt(number, remaining);
      if ('done' in result) {
        this.budget.onAnswer();
        return { answered: result.done, attempts: number };
      }
      last = result.retry;
      if (number >= p.maxAttempts) return gaveUp('ATTEMPTS_EXHAUSTED', last, number);
      let wait = p.jitteredBackoffMs(number - 1);
      const serverDelay = result.retryAfterMs !== undefined && result.retryAfterMs > wait;
      if (serverDelay) wait = result.retryAfterMs;
      if (wait >= deadline - p.now()) {
        return gaveUp(serverDelay ? 'RETRY_AFTER_PAST_DEADLINE' : 'DEADLINE_REACHED', last, number);
      }
      if (!this.budget.tryAcquire()) return gaveUp('BUDGET_EXHAUSTED', last, number);
      await p.sleep(wait);
    }
  }
}

function gaveUp(stop, reason, attempts) {
  const what = {
    DEADLINE_REACHED: 'the deadline was reached',
    ATTEMPTS_EXHAUSTED: 'the attempts ran out',
    RETRY_AFTER_PAST_DEADLINE: "the server's Retry-After reaches past the deadline",
    BUDGET_EXHAUSTED: 'the retry budget is exhausted',
  }[stop];
  return {
    gaveUp: stop,
    reason: `${what} after ${attempts} attempt(s)${reason ? `; last: ${reason}` : ''}`,
    attempts,
  };
}
