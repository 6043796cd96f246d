import { ActionConflictError } from './journal.js';
import { PROBLEM_BASE } from './problem.js';

export const REPLAYED_NOTE =
  'This action had already been carried out; this is its recorded result. It was not carried out again.';
export const REFUSED_NOTE =
  'The tool refused this action and recorded the refusal. Repeating the call returns the same answer.';
export const REJECTED_NOTE =
  'Nothing was carried out. Repeating this exact call returns the same answer; a corrected call is a new action.';
export const UNKNOWN_NOTE =
  'It is not known whether this action took effect. Do not assume that it succeeded or that it failed,' +
  ' and do not carry it out again as a new action: tell the user that it is being checked. Calling the' +
  ' tool again with the same arguments only checks on this same action.';
export const CONFLICT_NOTE =
  'Nothing was sent: this step was already taken with other arguments, and a step keeps its arguments.' +
  ' A different action must be asked for as a new step.';

/** `completed`, `refused` (a recorded business error), `rejected` or `unknown`. */
export function outcomeKind(outcome) {
  if (outcome.kind === 'completed') return outcome.isSuccess ? 'completed' : 'refused';
  return outcome.kind;
}

/**
 * The text a model is given for an outcome, the same JSON object as the Java integrations give:
 * its `outcome` member says which it is, so an unknown outcome can never read as a success.
 */
export function modelText(outcome) {
  const text = { outcome: outcomeKind(outcome) };
  if (outcome.kind === 'completed') {
    Object.assign(text, { status: outcome.status, replayed: outcome.replayed, result: outcome.body });
    if (!outcome.isSuccess) text.note = REFUSED_NOTE;
    else if (outcome.replayed) text.note = REPLAYED_NOTE;
  } else if (outcome.kind === 'rejected') {
    const p = outcome.problem;
    text.problem = { type: p.type, title: p.title, detail: p.detail };
    text.note = REJECTED_NOTE;
  } else {
    text.note = UNKNOWN_NOTE;
  }
  return JSON.stringify(text);
}

/** The text for a step refused by the journal because its arguments changed; nothing was sent. */
export function conflictText(error) {
  if (!(error instanceof ActionConflictError)) throw error;
  return JSON.stringify({
    outcome: 'rejected',
    problem: {
      type: PROBLEM_BASE + 'idempotency-key-reused',
      title: 'Step reused with other arguments',
      detail: error.message,
    },
    note: CONFLICT_NOTE,
  });
}
