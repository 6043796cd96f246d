/**
 * How one action ended, as far as the client can know; exactly one of three, as in the Java
 * client: Completed (a recorded outcome, success or a recorded business error; `replayed` when
 * this call did not cause the execution), Rejected (a definitive refusal after which nothing
 * happened), Unknown (no definitive answer: the effect may or may not have happened; never guess).
 */
export class Completed {
  kind = 'completed';
  /** @param {string} key @param {number} status @param {unknown} body @param {boolean} replayed */
  constructor(key, status, body, replayed) {
    Object.assign(this, { key, status, body, replayed });
    Object.freeze(this);
  }
  /** A success: the recorded status is below 400. */
  get isSuccess() {
    return this.status < 400;
  }
  toString() {
    return `Completed[status=${this.status}, replayed=${this.replayed}]`;
  }
}

export class Rejected {
  kind = 'rejected';
  /** @param {string} key @param {import('./problem.js').ProblemDetails} problem */
  constructor(key, problem) {
    Object.assign(this, { key, problem });
    Object.freeze(this);
  }
  toString() {
    return `Rejected[${this.problem}]`;
  }
}

export class Unknown {
  kind = 'unknown';
  /** @param {string} key @param {string} reason what was tried and why it stopped; no secrets */
  constructor(key, reason) {
    Object.assign(this, { key, reason });
    Object.freeze(this);
  }
  toString() {
    return `Unknown[${this.reason}]`;
  }
}

/** What `GET /v1/operations/{key}` said: found (with a state), not found, or no answer. */
export class Found {
  kind = 'found';
  constructor(key, { tool, state, response, createdAt, completedAt, expiresAt }) {
    Object.assign(this, { key, tool, state, response, createdAt, completedAt, expiresAt });
    Object.freeze(this);
  }
}

export class NotFound {
  kind = 'not-found';
  constructor(key) {
    this.key = key;
    Object.freeze(this);
  }
}

export class Unavailable {
  kind = 'unavailable';
  constructor(key, reason) {
    Object.assign(this, { key, reason });
    Object.freeze(this);
  }
}
