import { Completed, Found, NotFound, Rejected, Unavailable, Unknown } from './outcome.js';
import { ProblemDetails } from './problem.js';

export const REPLAYED = 'idempotent-replayed';
const STATES = new Set(['IN_PROGRESS', 'COMPLETED', 'UNKNOWN', 'NOT_EXECUTED']);

/**
 * What an answer to `POST /v1/tools/{tool}` means: the one table that decides what is retried
 * (docs/client.md, the Java client's HttpAnswers and ProblemOutcomes).
 *
 * @param {(name: string) => string | null} header
 * @returns {import('./retry.js').AttemptResult}
 */
export function toolAnswer(key, status, header, body, now = Date.now()) {
  const replayed = header(REPLAYED);
  if (replayed !== null && replayed !== undefined) {
    return { done: new Completed(key, status, parseBody(body), replayed.trim().toLowerCase() === 'true') };
  }
  return classifyProblem(
    key,
    ProblemDetails.parse(status, body),
    retryAfterMs(header('retry-after'), now),
    'HTTP',
    `HTTP ${status} without Idempotent-Replayed is not a recorded ToolLedger outcome; check the base URL`,
  );
}

/** Retried, Unknown or Rejected, for a problem answer without a recorded outcome. */
export function classifyProblem(key, problem, retryAfter, via, notRecorded) {
  const status = problem.status;
  const slug = problem.slug;
  switch (slug) {
    case 'outcome-unknown':
      return {
        done: new Unknown(
          key,
          'the server holds this operation\'s outcome as unknown and will not execute it again;' +
            ' resolve it with an operator',
        ),
      };
    case 'operation-not-executed':
    case 'response-too-large':
      return { done: new Rejected(key, problem) };
    case 'operation-expired':
      return {
        done: new Unknown(
          key,
          `the server no longer holds this operation's record (${status} operation-expired);` +
            ' its effect cannot be established from the server',
        ),
      };
    default:
      break;
  }
  if (slug === 'operation-in-progress' || status === 408 || status === 429 || status >= 500) {
    return { retry: `${via} ${status}${slug ? ' ' + slug : ''}`, retryAfterMs: retryAfter };
  }
  if (status >= 200 && status < 300) return { done: new Unknown(key, notRecorded) };
  return { done: new Rejected(key, problem) };
}

/** What an answer to `GET /v1/operations/{key}` means. */
export function lookupAnswer(key, status, header, body, now = Date.now()) {
  if (status === 200) {
    try {
      return { done: found(key, JSON.parse(body)) };
    } catch {
      return { done: new Unavailable(key, 'the lookup answer could not be read') };
    }
  }
  if (status === 404) return { done: new NotFound(key) };
  const slug = ProblemDetails.parse(status, body).slug;
  const what = `HTTP ${status}${slug ? ' ' + slug : ''}`;
  if (status === 408 || status === 429 || status >= 500) {
    return { retry: what, retryAfterMs: retryAfterMs(header('retry-after'), now) };
  }
  return { done: new Unavailable(key, `the lookup was refused: ${what}`) };
}

function found(key, json) {
  if (json === null || typeof json !== 'object' || !STATES.has(json.state)) {
    throw new TypeError('not an operation');
  }
  const r = json.response;
  const response =
    r && typeof r === 'object' ? { status: r.status, body: JSON.stringify(r.body ?? null) } : undefined;
  if ((json.state === 'COMPLETED') !== (response !== undefined)) {
    throw new TypeError('a response belongs to COMPLETED operations only');
  }
  const date = (v) => (typeof v === 'string' ? new Date(v) : undefined);
  return new Found(key, {
    tool: typeof json.tool === 'string' ? json.tool : undefined,
    state: json.state,
    response,
    createdAt: date(json.createdAt),
    completedAt: date(json.completedAt),
    expiresAt: date(json.expiresAt),
  });
}

/** The recorded body as JSON; a body that is not JSON is kept as a string rather than lost. */
export function parseBody(body) {
  try {
    return JSON.parse(body);
  } catch {
    return body ?? '';
  }
}

/** `Retry-After` (RFC 9110 10.2.3) in ms: delay-seconds or an HTTP-date; undefined if neither. */
export function retryAfterMs(value, now = Date.now()) {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
