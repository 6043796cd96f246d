"""What an answer of the ToolLedger API means: the one table that decides what is retried.

The same table as the Java client's HttpAnswers and ProblemOutcomes (docs/client.md).
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Optional

from .outcome import Completed, Found, NotFound, ProblemDetails, Rejected, Unavailable, Unknown
from .retry import AttemptResult, Done, Retry

REPLAYED = "Idempotent-Replayed"
_STATES = {"IN_PROGRESS", "COMPLETED", "UNKNOWN", "NOT_EXECUTED"}


def tool_answer(key: str, status: int, header: Callable[[str], Optional[str]], body: str, now: Optional[float] = None) -> AttemptResult:
    replayed = header(REPLAYED)
    if replayed is not None:
        return Done(Completed(key, status, parse_body(body), replayed.strip().lower() == "true"))
    return classify_problem(
        key,
        ProblemDetails.parse(status, body),
        retry_after_s(header("Retry-After"), now),
        "HTTP",
        f"HTTP {status} without Idempotent-Replayed is not a recorded ToolLedger outcome; check the base URL",
    )


def classify_problem(key: str, problem: ProblemDetails, retry_after: Optional[float], via: str, not_recorded: str) -> AttemptResult:
    status, slug = problem.status, problem.slug
    if slug == "outcome-unknown":
        return Done(Unknown(key, "the server holds this operation's outcome as unknown and will not"
                                 " execute it again; resolve it with an operator"))
    if slug in ("operation-not-executed", "response-too-large"):
        return Done(Rejected(key, problem))
    if slug == "operation-expired":
        return Done(Unknown(key, f"the server no longer holds this operation's record ({status}"
                                 " operation-expired); its effect cannot be established from the server"))
    if slug == "operation-in-progress" or status in (408, 429) or status >= 500:
        return Retry(f"{via} {status}" + (f" {slug}" if slug else ""), retry_after)
    if 200 <= status < 300:
        return Done(Unknown(key, not_recorded))
    return Done(Rejected(key, problem))


def lookup_answer(key: str, status: int, header: Callable[[str], Optional[str]], body: str, now: Optional[float] = None) -> AttemptResult:
    if status == 200:
        try:
            return Done(found(key, json.loads(body)))
        except (ValueError, TypeError, KeyError):
            return Done(Unavailable(key, "the lookup answer could not be read"))
    if status == 404:
        return Done(NotFound(key))
    slug = ProblemDetails.parse(status, body).slug
    what = f"HTTP {status}" + (f" {slug}" if slug else "")
    if status in (408, 429) or status >= 500:
        return Retry(what, retry_after_s(header("Retry-After"), now))
    return Done(Unavailable(key, f"the lookup was refused: {what}"))


def found(key: str, doc: Any) -> Found:
    """An operation document (``GET /v1/operations/{key}``, MCP ``get-operation``)."""
    if not isinstance(doc, dict) or doc.get("state") not in _STATES:
        raise ValueError("not an operation")
    r = doc.get("response")
    status = body = None
    if isinstance(r, dict):
        status, body = r.get("status"), json.dumps(r.get("body"), ensure_ascii=False, separators=(",", ":"))
    if (doc["state"] == "COMPLETED") != (status is not None):
        raise ValueError("a response belongs to COMPLETED operations only")
    date = lambda v: datetime.fromisoformat(v.replace("Z", "+00:00")) if isinstance(v, str) else None  # noqa: E731
    return Found(key, doc.get("tool") if isinstance(doc.get("tool"), str) else None, doc["state"], status, body,
                 date(doc.get("createdAt")), date(doc.get("completedAt")), date(doc.get("expiresAt")))


def parse_body(body: Optional[str]) -> Any:
    """The recorded body as JSON; a body that is not JSON is kept as a string rather than lost."""
    try:
        return json.loads(body) if body is not None else ""
    except ValueError:
        return body


def retry_after_s(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After (RFC 9110 10.2.3) in seconds: delay-seconds or an HTTP-date; None if neither."""
    if value is None:
        return None
    v = value.strip()
    if v.isdigit():
        return float(int(v))
    try:
        at = parsedate_to_datetime(v).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))
