// Types of @toolledger/client. The runtime is plain ESM JavaScript (no build step).

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** RFC 8785 canonical JSON, byte-for-byte as toolledger-core's CanonicalJson. */
export function canonicalize(value: unknown): string;
export function sameJson(a: unknown, b: unknown): boolean;

export type Status = 'PENDING' | 'COMPLETED' | 'REJECTED' | 'UNKNOWN';
export const Status: Readonly<{ PENDING: 'PENDING'; COMPLETED: 'COMPLETED'; REJECTED: 'REJECTED'; UNKNOWN: 'UNKNOWN' }>;
export const DEFAULT_BUSY_TIMEOUT_MS: number;

export interface Action {
  readonly workflowId: string;
  readonly stepId: string;
  readonly tool: string;
  readonly parameters: unknown;
}

export interface JournalEntry {
  readonly key: string;
  readonly action: Action;
  readonly status: Status;
  /** The recorded response, the body as JSON text; present for COMPLETED. */
  readonly response?: { status: number; body: string };
  /** The problem document; present for REJECTED. */
  readonly problem?: Record<string, unknown>;
  readonly recordedAt: Date;
  readonly updatedAt: Date;
}

export class ToolLedgerError extends Error {}
export class JournalError extends ToolLedgerError {}
export class ActionConflictError extends ToolLedgerError {
  readonly existing: JournalEntry;
}

export function newKey(): string;
export function action(workflowId: string, stepId: string, tool: string, parameters: unknown): Action;
export function sameIntent(a: Action, b: Action): boolean;

export interface JournalOptions {
  /** Default 5000. */
  busyTimeoutMs?: number;
  now?: () => number;
  keys?: () => string;
}

/** One SQLite file, the Java client's format: record before send, one step one key forever. */
export class ActionJournal {
  static open(path: string, options?: JournalOptions): ActionJournal;
  constructor(path: string, options?: JournalOptions);
  readonly path: string;
  /** @throws ActionConflictError the step is journaled with another tool or other parameters */
  record(action: Action): { entry: JournalEntry; isNew: boolean };
  find(workflowId: string, stepId: string): JournalEntry | undefined;
  findKey(key: string): JournalEntry | undefined;
  entries(workflowId: string): JournalEntry[];
  unfinished(workflowId: string): JournalEntry[];
  workflowsWithUnfinishedActions(): string[];
  markCompleted(key: string, response: { status: number; body: string }): JournalEntry;
  markRejected(key: string, problemDocument: object): JournalEntry;
  markUnknown(key: string): JournalEntry;
  close(): void;
}

export const RETRY_DEFAULTS: Readonly<RetryOptions>;
export interface RetryOptions {
  /** Default 5, the first attempt included. */
  maxAttempts?: number;
  /** Default 30 000, from the first attempt. */
  deadlineMs?: number;
  /** Default 200. */
  backoffBaseMs?: number;
  /** Default 5 000. */
  backoffMaxMs?: number;
  /** Default 20. */
  budgetTokens?: number;
  /** Default 10. */
  budgetFloor?: number;
  /** Default 0.1. */
  budgetRefund?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}
export class RetryPolicy {
  constructor(options?: RetryOptions);
  readonly maxAttempts: number;
  readonly deadlineMs: number;
  jitteredBackoffMs(n: number): number;
}

export type AttemptResult<T> = { done: T } | { retry: string; retryAfterMs?: number };
export class Retrier {
  constructor(policy?: RetryPolicy);
  readonly policy: RetryPolicy;
  readonly budgetTokens: number;
  run<T>(attempt: (attempt: number, remainingMs: number) => Promise<AttemptResult<T>>): Promise<
    { answered: T; attempts: number } | { gaveUp: string; reason: string; attempts: number }
  >;
}

export const PROBLEM_BASE: string;
/** An RFC 9457 problem document as received. */
export class ProblemDetails {
  readonly type: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly document: Record<string, unknown>;
  /** ToolLedger's slug (`idempotency-key-reused`, ...) when the type is one of ours. */
  readonly slug: string | undefined;
  is(slug: string): boolean;
  static of(slug: string, status: number, title: string, detail: string): ProblemDetails;
  static parse(status: number, body: string | undefined): ProblemDetails;
  static fromDocument(document: object, status?: number): ProblemDetails;
}

/** A recorded outcome: a success or a recorded business error. */
export class Completed {
  readonly kind: 'completed';
  readonly key: string;
  readonly status: number;
  readonly body: unknown;
  /** True when this call did not cause the execution (replay, lookup or journal). */
  readonly replayed: boolean;
  readonly isSuccess: boolean;
}
/** A definitive refusal after which nothing happened. */
export class Rejected {
  readonly kind: 'rejected';
  readonly key: string;
  readonly problem: ProblemDetails;
}
/** No definitive answer: it may or may not have happened. Never guess; look up or resume. */
export class Unknown {
  readonly kind: 'unknown';
  readonly key: string;
  readonly reason: string;
}
export type Outcome = Completed | Rejected | Unknown;

export class Found {
  readonly kind: 'found';
  readonly key: string;
  readonly tool: string | undefined;
  readonly state: 'IN_PROGRESS' | 'COMPLETED' | 'UNKNOWN' | 'NOT_EXECUTED';
  readonly response: { status: number; body: string } | undefined;
  readonly createdAt: Date | undefined;
  readonly completedAt: Date | undefined;
  readonly expiresAt: Date | undefined;
}
export class NotFound {
  readonly kind: 'not-found';
  readonly key: string;
}
export class Unavailable {
  readonly kind: 'unavailable';
  readonly key: string;
  readonly reason: string;
}
export type LookupResult = Found | NotFound | Unavailable;

export type Header = (name: string) => string | null;
export function toolAnswer(key: string, status: number, header: Header, body: string, now?: number): AttemptResult<Outcome>;
export function lookupAnswer(key: string, status: number, header: Header, body: string, now?: number): AttemptResult<LookupResult>;
export function classifyProblem(
  key: string,
  problem: ProblemDetails,
  retryAfterMs: number | undefined,
  via: string,
  notRecorded: string,
): AttemptResult<Outcome>;
export function retryAfterMs(value: string | null | undefined, now?: number): number | undefined;

/** One attempt per call, the key unchanged, the answer classified. */
export interface ActionTransport {
  send(key: string, action: Action, timeoutMs: number): Promise<AttemptResult<Outcome>>;
  lookup(key: string, timeoutMs: number): Promise<AttemptResult<LookupResult>>;
}
export class HttpTransport implements ActionTransport {
  constructor(options: { baseUrl: string; token: string; fetch?: typeof fetch });
  send(key: string, action: Action, timeoutMs: number): Promise<AttemptResult<Outcome>>;
  lookup(key: string, timeoutMs: number): Promise<AttemptResult<LookupResult>>;
}

export const DEFAULT_ATTEMPT_TIMEOUT_MS: number;
export const DEFAULT_RESEND_WINDOW_MS: number;
export interface ClientOptions {
  journal: ActionJournal;
  baseUrl?: string;
  token?: string;
  transport?: ActionTransport;
  retryPolicy?: RetryPolicy;
  /** Default 10 000. */
  attemptTimeoutMs?: number;
  /** Default 24 h. */
  resendWindowMs?: number;
  now?: () => number;
}
export class ToolLedgerClient {
  constructor(options: ClientOptions);
  readonly journal: ActionJournal;
  readonly retryBudgetTokens: number;
  execute(workflowId: string, stepId: string, tool: string, parameters: unknown): Promise<Outcome>;
  call(action: Action): Promise<Outcome>;
  lookup(key: string): Promise<LookupResult>;
  resume(workflowId: string): Promise<Array<{ action: Action; key: string; outcome: Outcome }>>;
}

export function outcomeKind(outcome: Outcome): 'completed' | 'refused' | 'rejected' | 'unknown';
/** The JSON text a model is given for an outcome (as the Java integrations give it). */
export function modelText(outcome: Outcome): string;
export function conflictText(error: ActionConflictError): string;
