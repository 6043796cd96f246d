"""Outcomes, lookup results and RFC 9457 problems, as the Java client has them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Optional, Union

PROBLEM_BASE = "https://toolledger.dev/problems/"


@dataclass(frozen=True)
class ProblemDetails:
    """An RFC 9457 problem document as received (a gateway's too: type ``about:blank``)."""

    type: str
    status: int
    title: str
    detail: str
    document: dict = field(repr=False)

    @property
    def slug(self) -> Optional[str]:
        """ToolLedger's slug (``idempotency-key-reused``, ...) when the type is one of ours."""
        rest = self.type[len(PROBLEM_BASE):] if self.type.startswith(PROBLEM_BASE) else None
        return rest if rest and "/" not in rest else None

    def is_(self, slug: str) -> bool:
        return self.type == PROBLEM_BASE + slug

    @staticmethod
    def of(slug: str, status: int, title: str, detail: str) -> "ProblemDetails":
        return ProblemDetails.from_document(
            {"type": PROBLEM_BASE + slug, "title": title, "status": status, "detail": detail}, status
        )

    @staticmethod
    def parse(status: int, body: Optional[str]) -> "ProblemDetails":
        """Reads an answer; a body that is not a JSON object becomes ``about:blank`` (not kept)."""
        try:
            doc = json.loads(body) if body else None
        except ValueError:
            doc = None
        if not isinstance(doc, dict):
            doc = {
                "type": "about:blank",
                "title": f"HTTP {status}",
                "status": status,
                "detail": f"the server answered HTTP {status} without a problem document",
            }
        return ProblemDetails.from_document(doc, status)

    @staticmethod
    def from_document(document: Any, status: Optional[int] = None) -> "ProblemDetails":
        doc = dict(document) if isinstance(document, dict) else {}
        text = lambda m: doc[m] if isinstance(doc.get(m), str) else ""  # noqa: E731
        if status is None:
            status = doc["status"] if isinstance(doc.get("status"), int) else 0
        return ProblemDetails(text("type") or "about:blank", status, text("title"), text("detail"), doc)


@dataclass(frozen=True)
class Completed:
    """A recorded outcome: a success or a recorded business error. ``replayed`` when this call did
    not cause the execution (a replay after a lost answer, a lookup, or the journal)."""

    key: str = field(repr=False)
    status: int
    body: Any = field(repr=False)
    replayed: bool
    kind: str = field(default="completed", init=False)

    @property
    def is_success(self) -> bool:
        return self.status < 400


@dataclass(frozen=True)
class Rejected:
    """A definitive refusal after which nothing happened. A corrected attempt is a new step."""

    key: str = field(repr=False)
    problem: ProblemDetails
    kind: str = field(default="rejected", init=False)


@dataclass(frozen=True)
class Unknown:
    """No definitive answer: the effect may or may not have happened. Not failure: never guess,
    never send it again under a new key; look it up, resume later, or hand the key to a human."""

    key: str = field(repr=False)
    reason: str
    kind: str = field(default="unknown", init=False)


Outcome = Union[Completed, Rejected, Unknown]


@dataclass(frozen=True)
class Found:
    key: str = field(repr=False)
    tool: Optional[str]
    state: str
    response_status: Optional[int] = None
    response_body: Optional[str] = field(default=None, repr=False)
    created_at: Optional[datetime] = None
    completed_at: Optional[datetime] = None
    expires_at: Optional[datetime] = None
    kind: str = field(default="found", init=False)


@dataclass(frozen=True)
class NotFound:
    key: str = field(repr=False)
    kind: str = field(default="not-found", init=False)


@dataclass(frozen=True)
class Unavailable:
    key: str = field(repr=False)
    reason: str
    kind: str = field(default="unavailable", init=False)


LookupResult = Union[Found, NotFound, Unavailable]
