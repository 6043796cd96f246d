"""The client's one retrying layer, as the Java client's RetryPolicy (docs/client.md).

Full jitter, a deadline from the first attempt, Retry-After waited out in full or not at all, and
a token bucket shared by all calls of one client.
"""

from __future__ import annotations

import random as _random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Union


@dataclass(frozen=True)
class RetryPolicy:
    """Defaults: 5 attempts, a 30 s deadline, backoff 0.2 s to 5 s, budget 20 tokens, floor 10, refund 0.1."""

    max_attempts: int = 5
    deadline_s: float = 30.0
    backoff_base_s: float = 0.2
    backoff_max_s: float = 5.0
    budget_tokens: float = 20.0
    budget_floor: float = 10.0
    budget_refund: float = 0.1
    clock: Callable[[], float] = field(default=time.monotonic, compare=False)
    sleep: Callable[[float], None] = field(default=time.sleep, compare=False)
    random: Callable[[], float] = field(default=_random.random, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ValueError("max_attempts must be an integer of at least 1")
        if not self.deadline_s > 0:
            raise ValueError("deadline_s must be positive")
        for name in ("backoff_base_s", "backoff_max_s", "budget_tokens", "budget_floor", "budget_refund"):
            if not getattr(self, name) >= 0:
                raise ValueError(f"{name} must not be negative")
        if self.backoff_max_s < self.backoff_base_s:
            raise ValueError("backoff_max_s must not be below backoff_base_s")
        if self.budget_floor > self.budget_tokens:
            raise ValueError("budget_floor must not exceed budget_tokens")

    def jittered_backoff_s(self, n: int) -> float:
        """Before retry n (0-based): random(0, min(max, base * 2**n))."""
        return self.random() * min(self.backoff_max_s, self.backoff_base_s * 2 ** min(n, 52))


@dataclass(frozen=True)
class Done:
    """A definitive answer: never retried."""

    value: Any


@dataclass(frozen=True)
class Retry:
    """Safe and useful to try again, after `retry_after_s` if the server asked."""

    reason: str
    retry_after_s: Optional[float] = None


AttemptResult = Union[Done, Retry]


@dataclass(frozen=True)
class Answered:
    value: Any
    attempts: int


@dataclass(frozen=True)
class GaveUp:
    stop: str
    reason: str
    attempts: int


_WHAT = {
    "DEADLINE_REACHED": "the deadline was reached",
    "ATTEMPTS_EXHAUSTED": "the attempts ran out",
    "RETRY_AFTER_PAST_DEADLINE": "the server's Retry-After reaches past the deadline",
    "BUDGET_EXHAUSTED": "the retry budget is exhausted",
}


def _gave_up(stop: str, last: str, attempts: int) -> GaveUp:
    return GaveUp(stop, f"{_WHAT[stop]} after {attempts} attempt(s)" + (f"; last: {last}" if last else ""), attempts)


class Retrier:
    """Runs attempts under a policy and owns its budget; share one per service. Thread-safe."""

    def __init__(self, policy: RetryPolicy = RetryPolicy()) -> None:
        self.policy = policy
        self._tokens = policy.budget_tokens
        self._lock = threading.Lock()

    @property
    def budget_tokens(self) -> float:
        return self._tokens

    def _acquire(self) -> bool:
        with self._lock:
            if self._tokens <= self.policy.budget_floor:
                return False
            self._tokens = max(0.0, self._tokens - 1)
            return True

    def _answered(self) -> None:
        with self._lock:
            self._tokens = min(self.policy.budget_tokens, self._tokens + self.policy.budget_refund)

    def run(self, attempt: Callable[[int, float], AttemptResult]) -> Union[Answered, GaveUp]:
        p = self.policy
        deadline = p.clock() + p.deadline_s
        last = ""
        number = 1
        while True:
            remaining = deadline - p.clock()
            if remaining <= 0:
                return _gave_up("DEADLINE_REACHED", last, number - 1)
            result = attempt(number, remaining)
            if isinstance(result, Done):
                self._answered()
                return Answered(result.value, number)
            last = result.reason
            if number >= p.max_attempts:
                return _gave_up("ATTEMPTS_EXHAUSTED", last, number)
            wait = p.jittered_backoff_s(number - 1)
            server_delay = result.retry_after_s is not None and result.retry_after_s > wait
            if server_delay:
                wait = result.retry_after_s
            if wait >= deadline - p.clock():
                return _gave_up("RETRY_AFTER_PAST_DEADLINE" if server_delay else "DEADLINE_REACHED", last, number)
            if not self._acquire():
                return _gave_up("BUDGET_EXHAUSTED", last, number)
            p.sleep(wait)
            number += 1
