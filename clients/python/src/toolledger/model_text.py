"""The text a model is given for an outcome: the same JSON object as the Java integrations give.

Its ``outcome`` member says which it is (completed, refused, rejected, unknown), so an unknown
outcome can never read as a success.
"""

from __future__ import annotations

import json

from .journal import ActionConflictError
from .outcome import PROBLEM_BASE, Outcome

REPLAYED_NOTE = "This action had already been carried out; this is its recorded result. It was not carried out again."
REFUSED_NOTE = "The tool refused this action and recorded the refusal. Repeating the call returns the same answer."
REJECTED_NOTE = "Nothing was carried out. Repeating this exact call returns the same answer; a corrected call is a new action."
UNKNOWN_NOTE = (
    "It is not known whether this action took effect. Do not assume that it succeeded or that it failed,"
    " and do not carry it out again as a new action: tell the user that it is being checked. Calling the"
    " tool again with the same arguments only checks on this same action."
)
CONFLICT_NOTE = (
    "Nothing was sent: this step was already taken with other arguments, and a step keeps its arguments."
    " A different action must be asked for as a new step."
)


def outcome_kind(outcome: Outcome) -> str:
    if outcome.kind == "completed":
        return "completed" if outcome.is_success else "refused"
    return outcome.kind


def model_text(outcome: Outcome) -> str:
    text: dict = {"outcome": outcome_kind(outcome)}
    if outcome.kind == "completed":
        text.update(status=outcome.status, replayed=outcome.replayed, result=outcome.body)
        if not outcome.is_success:
            text["note"] = REFUSED_NOTE
        elif outcome.replayed:
            text["note"] = REPLAYED_NOTE
    elif outcome.kind == "rejected":
        p = outcome.problem
        text["problem"] = {"type": p.type, "title": p.title, "detail": p.detail}
        text["note"] = REJECTED_NOTE
    else:
        text["note"] = UNKNOWN_NOTE
    return json.dumps(text, ensure_ascii=False, separators=(",", ":"))


def conflict_text(error: ActionConflictError) -> str:
    return json.dumps(
        {
            "outcome": "rejected",
            "problem": {
                "type": PROBLEM_BASE + "idempotency-key-reused",
                "title": "Step reused with other arguments",
                "detail": str(error),
            },
            "note": CONFLICT_NOTE,
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
