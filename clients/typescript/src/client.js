import { action as makeAction, ActionJournal, Status, JournalError } from './journal.js';
import { lookupAnswer, parseBody, toolAnswer } from './answers.js';
import { Completed, Rejected, Unavailable, Unknown } from './outcome.js';
import { ProblemDetails } from './problem.js';
import { Retrier, RetryPolicy } from './retry.js';

/** Default per-attempt timeout: 10 s (the server waits up to 5 s for a concurrent twin). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;
/** Default resend window: 24 h, well inside the default tool retention of 7 days. */
export const DEFAULT_RESEND_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * ToolLedger's HTTP API, one request per attempt, with the journal's key in `Idempotency-Key` (as
 * an RFC 8941 string). Uses the global `fetch` (Node 18+), which does not retry by itself.
 */
export class HttpTransport {
  /** @param {{baseUrl: string, token: string, fetch?: typeof fetch}} options */
  constructor({ baseUrl, token, fetch: f = globalThis.fetch }) {
    if (!baseUrl) throw new TypeError('baseUrl is required');
    if (!token) throw new TypeError('token is required');
    this.base = String(baseUrl).replace(/\/+$/, '');
    this.authorization = `Bearer ${token}`;
    this.fetch = f;
  }

  async send(key, act, timeoutMs) {
    return this.#exchange(
      `${this.base}/v1/tools/${encodeURIComponent(act.tool)}`,
      {
        method: 'POST',
        headers: {
          authorization: this.authorization,
          'idempotency-key': `"${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
          'content-type': 'application/json',
          accept: 'application/json, application/problem+json',
        },
        body: JSON.stringify(act.parameters),
      },
      timeoutMs,
      (status, header, body) => toolAnswer(key, status, header, body),
    );
  }

  async lookup(key, timeoutMs) {
    return this.#exchange(
      `${this.base}/v1/operations/${encodeURIComponent(key)}`,
      {
        method: 'GET',
        headers: { authorization: this.authorization, accept: 'application/json, application/problem+json' },
      },
      timeoutMs,
      (status, header, body) => lookupAnswer(key, status, header, body),
    );
  }

  async #exchange(url, init, timeoutMs, classify) {
    let response;
    let body;
    try {
      response = await this.fetch(url, { ...init, signal: AbortSignal.timeout(Math.max(1, Math.floor(timeoutMs))) });
      body = await response.text();
    } catch (e) {
      // Refused, reset, closed before the answer, or timed out: the request may or may not have
      // reached the server. Only the error's name is reported; messages carry addresses.
      const timedOut = e?.name === 'TimeoutError' || e?.name === 'AbortError';
      return { retry: timedOut ? 'timed out' : `transport failure (${e?.cause?.code ?? e?.name ?? 'error'})` };
    }
    return classify(response.status, (name) => response.headers.get(name), body);
  }
}

/**
 * The agent side of ToolLedger, as the Java ToolLedgerClient: every action is journaled with a key
 * minted by the journal before it is first sent, sent with that key, retried per the policy with
 * the same key, and ends Completed, Rejected or Unknown. A step already answered is answered from
 * the journal without a request; a definitive answer is never retried; Unknown is never guessed.
 */
export class ToolLedgerClient {
  /**
   * @param {{
   *   journal: ActionJournal,
   *   baseUrl?: string, token?: string, transport?: {send: Function, lookup: Function},
   *   retryPolicy?: RetryPolicy, attemptTimeoutMs?: number, resendWindowMs?: number,
   *   now?: () => number
   * }} options
   */
  constructor({
    journal,
    baseUrl,
    token,
    transport,
    retryPolicy = new RetryPolicy(),
    attemptTimeoutMs = DEFAULT_ATTEMPT_TIMEOUT_MS,
    resendWindowMs = DEFAULT_RESEND_WINDOW_MS,
    now = Date.now,
  }) {
    if (!journal) throw new TypeError('journal is required');
    if (transport && (baseUrl || token)) {
      throw new TypeError('transport replaces baseUrl and token; give one or the other');
    }
    if (!(attemptTimeoutMs > 0)) throw new RangeError('attemptTimeoutMs must be positive');
    if (!(resendWindowMs >= 0)) throw new RangeError('resendWindowMs must not be negative');
    this.journal = journal;
    this.transport = transport ?? new HttpTransport({ baseUrl, token });
    this.retrier = new Retrier(retryPolicy);
    this.attemptTimeoutMs = attemptTimeoutMs;
    this.resendWindowMs = resendWindowMs;
    this.now = now;
  }

  /** Tokens now in the shared retry budget, for metrics. */
  get retryBudgetTokens() {
    return this.retrier.budgetTokens;
  }

  /** `call` for a step given by its parts. */
  execute(workflowId, stepId, tool, parameters) {
    return this.call(makeAction(workflowId, stepId, tool, parameters));
  }

  /**
   * Journals the action (or finds it journaled), then drives it to an outcome: a new action is
   * sent with its new key; a step already answered returns the journaled outcome, sending
   * nothing; a step journaled but unanswered is looked up first and sent again with the same key
   * if needed. Throws ActionConflictError (nothing sent) when the step is journaled with another
   * tool or other parameters, JournalError when it cannot be journaled.
   */
  async call(act) {
    const { entry, isNew } = this.journal.record(act);
    if (entry.status === Status.COMPLETED || entry.status === Status.REJECTED) return journaled(entry);
    return isNew ? this.#send(entry) : this.#recover(entry);
  }

  /** Looks a key up, retrying transient failures; never throws for an unreachable server. */
  async lookup(key) {
    try {
      const r = await this.retrier.run((n, remaining) => this.transport.lookup(key, this.#perAttempt(remaining)));
      return 'answered' in r ? r.answered : new Unavailable(key, r.reason);
    } catch (e) {
      return new Unavailable(key, `the lookup failed unexpectedly (${e?.name})`);
    }
  }

  /**
   * Drives every unfinished action of a workflow (PENDING or UNKNOWN, for example after a crash)
   * to an outcome, in the order recorded, each with its original key.
   * @returns {Promise<Array<{action: object, key: string, outcome: Completed|Rejected|Unknown}>>}
   */
  async resume(workflowId) {
    const resumed = [];
    for (const entry of this.journal.unfinished(workflowId)) {
      resumed.push({ action: entry.action, key: entry.key, outcome: await this.#recover(entry) });
    }
    return resumed;
  }

  async #recover(entry) {
    const key = entry.key;
    const found = await this.lookup(key);
    if (found.kind === 'found') {
      if (found.tool !== undefined && found.tool !== entry.action.tool) {
        return this.#settle(entry, new Unknown(key,
          'the server holds this key for another tool; the journal and the server disagree, hand it to a human'));
      }
      switch (found.state) {
        case 'COMPLETED':
          return this.#settle(entry, new Completed(key, found.response.status, parseBody(found.response.body), true));
        case 'NOT_EXECUTED':
          return this.#settle(entry, new Rejected(key, ProblemDetails.of('operation-not-executed', 409,
            'Operation not executed', 'the server resolved this key as not executed; it will not execute')));
        case 'UNKNOWN':
          return this.#settle(entry, new Unknown(key,
            "the server holds this operation's outcome as unknown; resolve it with an operator"));
        default: // IN_PROGRESS: joins the execution under way and gets its outcome
          return this.#send(entry);
      }
    }
    if (found.kind === 'not-found') {
      const age = this.now() - entry.recordedAt.getTime();
      if (age > this.resendWindowMs) {
        return this.#settle(entry, new Unknown(key,
          `the server does not know this key and the action was recorded ${Math.floor(age / 3_600_000)} h ago,` +
            ' beyond the resend window; its record may have expired, so it is not sent again'));
      }
      return this.#send(entry);
    }
    return this.#settle(entry, new Unknown(key, `could not look the key up: ${found.reason}`));
  }

  async #send(entry) {
    let outcome;
    try {
      const r = await this.retrier.run((n, remaining) =>
        this.transport.send(entry.key, entry.action, this.#perAttempt(remaining)));
      outcome = 'answered' in r ? r.answered : new Unknown(entry.key, `no definitive answer: ${r.reason}`);
    } catch (e) {
      outcome = new Unknown(entry.key, `the request failed unexpectedly (${e?.name})`);
    }
    return this.#settle(entry, outcome);
  }

  /** Keeps the outcome in the journal. The answer stands even if the journal cannot take it. */
  #settle(entry, outcome) {
    try {
      if (outcome instanceof Completed) {
        this.journal.markCompleted(entry.key, { status: outcome.status, body: JSON.stringify(outcome.body) });
      } else if (outcome instanceof Rejected) {
        this.journal.markRejected(entry.key, outcome.problem.document);
      } else {
        this.journal.markUnknown(entry.key);
      }
    } catch (e) {
      if (!(e instanceof JournalError)) throw e;
      // The server holds the outcome; a later resume looks it up.
    }
    return outcome;
  }

  #perAttempt(remainingMs) {
    return Math.min(remainingMs, this.attemptTimeoutMs);
  }
}

function journaled(entry) {
  if (entry.status === Status.COMPLETED) {
    return new Completed(entry.key, entry.response.status, parseBody(entry.response.body), true);
  }
  return new Rejected(entry.key, ProblemDetails.fromDocument(entry.problem));
}
