"""The agent side of ToolLedger, as the Java ToolLedgerClient, on the standard library only."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Optional, Protocol

from .answers import lookup_answer, parse_body, tool_answer
from .errors import JournalError
from .journal import COMPLETED, FINAL, Action, ActionJournal, JournalEntry, Step
from .outcome import Completed, LookupResult, Outcome, ProblemDetails, Rejected, Unavailable, Unknown
from .retry import Answered, AttemptResult, Retrier, Retry, RetryPolicy

DEFAULT_ATTEMPT_TIMEOUT_S = 10.0
"""Per attempt (the server waits up to 5 s for a concurrent twin)."""
DEFAULT_RESEND_WINDOW_S = 24 * 3600.0
"""Well inside the default tool retention of 7 days."""


class ActionTransport(Protocol):
    """One attempt per call, the given key sent unchanged, the answer classified."""

    def send(self, key: str, action: Action, timeout_s: float) -> AttemptResult: ...

    def lookup(self, key: str, timeout_s: float) -> AttemptResult: ...


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class HttpTransport:
    """ToolLedger's HTTP API with urllib: the key in ``Idempotency-Key`` (an RFC 8941 string)."""

    def __init__(self, base_url: str, token: str) -> None:
        if not base_url:
            raise ValueError("base_url is required")
        if not token:
            raise ValueError("token is required")
        self._base = base_url.rstrip("/")
        self._authorization = f"Bearer {token}"
        self._opener = urllib.request.build_opener(_NoRedirect, urllib.request.ProxyHandler({}))

    def send(self, key: str, action: Action, timeout_s: float) -> AttemptResult:
        quoted = '"' + key.replace("\\", "\\\\").replace('"', '\\"') + '"'
        request = urllib.request.Request(
            f"{self._base}/v1/tools/{urllib.parse.quote(action.tool, safe='')}",
            data=json.dumps(action.parameters, ensure_ascii=False).encode("utf-8"),
            method="POST",
            headers={
                "Authorization": self._authorization,
                "Idempotency-Key": quoted,
                "Content-Type": "application/json",
                "Accept": "application/json, application/problem+json",
            },
        )
        return self._exchange(request, timeout_s, lambda s, h, b: tool_answer(key, s, h, b))

    def lookup(self, key: str, timeout_s: float) -> AttemptResult:
        request = urllib.request.Request(
            f"{self._base}/v1/operations/{urllib.parse.quote(key, safe='')}",
            method="GET",
            headers={"Authorization": self._authorization, "Accept": "application/json, application/problem+json"},
        )
        return self._exchange(request, timeout_s, lambda s, h, b: lookup_answer(key, s, h, b))

    def _exchange(self, request: urllib.request.Request, timeout_s: float, classify: Callable) -> AttemptResult:
        try:
            with self._opener.open(request, timeout=max(0.001, timeout_s)) as response:
                status, headers, body = response.status, response.headers, response.read()
        except urllib.error.HTTPError as e:
            try:
                status, headers, body = e.code, e.headers, e.read()
            except (OSError, http.client.HTTPException) as inner:
                return Retry(f"transport failure ({inner.__class__.__name__})")
        except (socket.timeout, TimeoutError):
            return Retry("timed out")
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            # Refused, reset or closed before the answer: the request may or may not have reached
            # the server. Only the class is reported; messages carry addresses.
            reason = getattr(e, "reason", e)
            return Retry(f"transport failure ({reason.__class__.__name__})")
        return classify(status, headers.get, body.decode("utf-8", "replace"))


class ToolLedgerClient:
    """Every action journaled with a key minted before it is first sent, sent with that key,
    retried per the policy with the same key, ending Completed, Rejected or Unknown.

    A step already answered is answered from the journal without a request; a definitive answer
    is never retried; Unknown is never turned into success or failure by guessing.
    """

    def __init__(
        self,
        journal: ActionJournal,
        *,
        base_url: Optional[str] = None,
        token: Optional[str] = None,
        transport: Optional[ActionTransport] = None,
        retry_policy: RetryPolicy = RetryPolicy(),
        attempt_timeout_s: float = DEFAULT_ATTEMPT_TIMEOUT_S,
        resend_window_s: float = DEFAULT_RESEND_WINDOW_S,
        now: Callable[[], float] = time.time,
    ) -> None:
        if journal is None:
            raise ValueError("journal is required")
        if transport is not None and (base_url or token):
            raise ValueError("transport replaces base_url and token; give one or the other")
        if not attempt_timeout_s > 0:
            raise ValueError("attempt_timeout_s must be positive")
        if not resend_window_s >= 0:
            raise ValueError("resend_window_s must not be negative")
        self.journal = journal
        self.transport = transport if transport is not None else HttpTransport(base_url or "", token or "")
        self._retrier = Retrier(retry_policy)
        self._attempt_timeout_s = attempt_timeout_s
        self._resend_window_s = resend_window_s
        self._now = now

    @property
    def retry_budget_tokens(self) -> float:
        return self._retrier.budget_tokens

    def execute(self, workflow_id: str, step_id: str, tool: str, parameters: Any) -> Outcome:
        return self.call(Action(workflow_id, step_id, tool, parameters))

    def execute_step(self, step: Step, tool: str, parameters: Any) -> Outcome:
        """``execute`` for a durable step (``ActionJournal.step(run_id, n)``)."""
        return self.call(Action(step.workflow_id, step.step_id, tool, parameters))

    def call(self, action: Action) -> Outcome:
        """Journals the action (or finds it journaled), then drives it to an outcome.

        Raises ActionConflictError (nothing sent) when the step is journaled with another tool or
        other parameters, JournalError when it cannot be journaled.
        """
        entry, is_new = self.journal.record(action)
        if entry.status in FINAL:
            return _journaled(entry)
        return self._send(entry) if is_new else self._recover(entry)

    def lookup(self, key: str) -> LookupResult:
        """Looks a key up, retrying transient failures; never raises for an unreachable server."""
        try:
            r = self._retrier.run(lambda n, remaining: self.transport.lookup(key, self._per_attempt(remaining)))
        except Exception as e:  # noqa: BLE001 - an unreachable server is an answer, not an error
            return Unavailable(key, f"the lookup failed unexpectedly ({e.__class__.__name__})")
        return r.value if isinstance(r, Answered) else Unavailable(key, r.reason)

    def resume(self, workflow_id: str) -> list[tuple[JournalEntry, Outcome]]:
        """Drives every unfinished action of a workflow to an outcome, each with its original key."""
        return [(entry, self._recover(entry)) for entry in self.journal.unfinished(workflow_id)]

    def _recover(self, entry: JournalEntry) -> Outcome:
        key = entry.key
        found = self.lookup(key)
        if found.kind == "found":
            if found.tool is not None and found.tool != entry.action.tool:
                return self._settle(entry, Unknown(key, "the server holds this key for another tool; the"
                                                        " journal and the server disagree, hand it to a human"))
            if found.state == COMPLETED:
                return self._settle(entry, Completed(key, found.response_status, parse_body(found.response_body), True))
            if found.state == "NOT_EXECUTED":
                return self._settle(entry, Rejected(key, ProblemDetails.of(
                    "operation-not-executed", 409, "Operation not executed",
                    "the server resolved this key as not executed; it will not execute")))
            if found.state == "UNKNOWN":
                return self._settle(entry, Unknown(key, "the server holds this operation's outcome as"
                                                        " unknown; resolve it with an operator"))
            return self._send(entry)  # IN_PROGRESS: joins the execution and gets its outcome
        if found.kind == "not-found":
            age = self._now() - entry.recorded_at.timestamp()
            if age > self._resend_window_s:
                return self._settle(entry, Unknown(key, f"the server does not know this key and the action was"
                                                        f" recorded {int(age // 3600)} h ago, beyond the resend"
                                                        " window; its record may have expired, so it is not sent again"))
            return self._send(entry)
        return self._settle(entry, Unknown(key, f"could not look the key up: {found.reason}"))

    def _send(self, entry: JournalEntry) -> Outcome:
        try:
            r = self._retrier.run(
                lambda n, remaining: self.transport.send(entry.key, entry.action, self._per_attempt(remaining)))
            outcome = r.value if isinstance(r, Answered) else Unknown(entry.key, f"no definitive answer: {r.reason}")
        except Exception as e:  # noqa: BLE001 - whatever broke, the effect may have happened
            outcome = Unknown(entry.key, f"the request failed unexpectedly ({e.__class__.__name__})")
        return self._settle(entry, outcome)

    def _settle(self, entry: JournalEntry, outcome: Outcome) -> Outcome:
        """Keeps the outcome in the journal; the answer stands even if the journal cannot take it."""
        try:
            if isinstance(outcome, Completed):
                self.journal.mark_completed(entry.key, outcome.status,
                                            json.dumps(outcome.body, ensure_ascii=False, separators=(",", ":")))
            elif isinstance(outcome, Rejected):
                self.journal.mark_rejected(entry.key, outcome.problem.document)
            else:
                self.journal.mark_unknown(entry.key)
        except JournalError:
            pass  # the server holds the outcome; a later resume looks it up
        return outcome

    def _per_attempt(self, remaining_s: float) -> float:
        return min(remaining_s, self._attempt_timeout_s)


def _journaled(entry: JournalEntry) -> Outcome:
    if entry.status == COMPLETED:
        return Completed(entry.key, entry.response_status, parse_body(entry.response_body), True)
    return Rejected(entry.key, ProblemDetails.from_document(entry.problem))
