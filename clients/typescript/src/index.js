export { canonicalize, sameJson } from './canonical.js';
export {
  ActionJournal,
  ActionConflictError,
  JournalError,
  ToolLedgerError,
  Status,
  action,
  newKey,
  sameIntent,
  DEFAULT_BUSY_TIMEOUT_MS,
} from './journal.js';
export { RetryPolicy, Retrier, RETRY_DEFAULTS } from './retry.js';
export { Completed, Rejected, Unknown, Found, NotFound, Unavailable } from './outcome.js';
export { ProblemDetails, PROBLEM_BASE } from './problem.js';
export { classifyProblem, lookupAnswer, retryAfterMs, toolAnswer } from './answers.js';
export {
  ToolLedgerClient,
  HttpTransport,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_RESEND_WINDOW_MS,
} from './client.js';
export { modelText, conflictText, outcomeKind } from './model-text.js';
