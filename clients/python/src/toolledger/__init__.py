"""ToolLedger's agent-side client for Python (standard library only).

Durable operation keys in a SQLite journal (the Java client's file format), one retrying layer
with jitter, a deadline and a budget, call / lookup / resume, three outcomes, RFC 9457 problems,
and ``ActionJournal.step(run_id, n)`` for hand-written agent loops. See docs/agents-python.md.
"""

from .canonical import canonicalize, same_json
from .client import DEFAULT_ATTEMPT_TIMEOUT_S, DEFAULT_RESEND_WINDOW_S, ActionTransport, HttpTransport, ToolLedgerClient
from .errors import JournalError, ToolLedgerError
from .journal import COMPLETED, PENDING, REJECTED, UNKNOWN, Action, ActionConflictError, ActionJournal, JournalEntry, Step, new_key
from .model_text import conflict_text, model_text, outcome_kind
from .outcome import (
    PROBLEM_BASE,
    Completed,
    Found,
    LookupResult,
    NotFound,
    Outcome,
    ProblemDetails,
    Rejected,
    Unavailable,
    Unknown,
)
from .retry import Retrier, RetryPolicy

__all__ = [
    "Action", "ActionConflictError", "ActionJournal", "ActionTransport", "COMPLETED", "Completed",
    "DEFAULT_ATTEMPT_TIMEOUT_S", "DEFAULT_RESEND_WINDOW_S", "Found", "HttpTransport", "JournalEntry",
    "JournalError", "LookupResult", "NotFound", "Outcome", "PENDING", "PROBLEM_BASE", "ProblemDetails",
    "REJECTED", "Rejected", "Retrier", "RetryPolicy", "Step", "ToolLedgerClient", "ToolLedgerError",
    "UNKNOWN", "Unavailable", "Unknown", "canonicalize", "conflict_text", "model_text", "new_key",
    "outcome_kind", "same_json",
]
