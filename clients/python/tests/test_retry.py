import unittest
from email.utils import formatdate

import _support  # noqa: F401

from toolledger.answers import lookup_answer, retry_after_s, tool_answer
from toolledger.retry import Done, Retrier, Retry, RetryPolicy


class FakeTime:
    def __init__(self, seed=1):
        self.now, self.sleeps, self.s = 0.0, [], seed

    def clock(self):
        return self.now

    def sleep(self, s):
        self.sleeps.append(s)
        self.now += s

    def random(self):
        self.s = (self.s * 16807) % 2147483647
        return self.s / 2147483647

    def policy(self, **kw):
        return RetryPolicy(clock=self.clock, sleep=self.sleep, random=self.random, **kw)


def problem(slug, status):
    return '{"type":"https://toolledger.dev/problems/%s","title":"t","status":%d,"detail":"d"}' % (slug, status)


class RetryTest(unittest.TestCase):
    def test_every_backoff_is_within_the_full_jitter_bound_and_no_sleep_reaches_the_deadline(self):
        for seed in range(1, 201):
            t = FakeTime(seed)
            p = t.policy(max_attempts=8, deadline_s=3, backoff_base_s=0.1, backoff_max_s=1, budget_tokens=1000)
            r = Retrier(p).run(lambda n, rem: Retry("down"))
            self.assertFalse(hasattr(r, "value"))
            for i, s in enumerate(t.sleeps):
                self.assertTrue(0 <= s <= min(1, 0.1 * 2**i), (seed, i, s))
            self.assertLess(sum(t.sleeps), 3)

    def test_a_definitive_answer_is_never_retried_and_retry_after_past_the_deadline_stops(self):
        t = FakeTime()
        calls = []
        r = Retrier(t.policy()).run(lambda n, rem: calls.append(n) or Done("x"))
        self.assertEqual((r.value, calls), ("x", [1]))
        r = Retrier(t.policy(deadline_s=5)).run(lambda n, rem: Retry("busy", 10))
        self.assertEqual((r.stop, r.attempts), ("RETRY_AFTER_PAST_DEADLINE", 1))

    def test_the_budget_caps_retries_across_calls_at_tokens_minus_floor(self):
        t = FakeTime()
        retrier = Retrier(t.policy(deadline_s=1e9))
        attempts = []
        for _ in range(50):
            retrier.run(lambda n, rem: attempts.append(n) or Retry("down"))
        self.assertEqual(len(attempts), 60)

    def test_bad_options_are_refused_by_name(self):
        with self.assertRaisesRegex(ValueError, "max_attempts"):
            RetryPolicy(max_attempts=0)
        with self.assertRaisesRegex(ValueError, "budget_floor"):
            RetryPolicy(budget_floor=30)

    def test_the_answer_table(self):
        h = lambda headers: lambda name: headers.get(name)  # noqa: E731
        self.assertTrue(tool_answer("k", 409, h({"Idempotent-Replayed": "true"}), "{}").value.replayed)
        self.assertFalse(tool_answer("k", 422, h({"Idempotent-Replayed": "false"}), "{}").value.is_success)
        busy = tool_answer("k", 503, h({"Retry-After": "2"}), problem("ledger-busy", 503))
        self.assertEqual((type(busy), busy.retry_after_s), (Retry, 2.0))
        self.assertIsInstance(tool_answer("k", 409, h({}), problem("operation-in-progress", 409)), Retry)
        self.assertIsInstance(tool_answer("k", 502, h({}), "<html>"), Retry)
        self.assertEqual(tool_answer("k", 409, h({}), problem("outcome-unknown", 409)).value.kind, "unknown")
        self.assertEqual(tool_answer("k", 410, h({}), problem("operation-expired", 410)).value.kind, "unknown")
        self.assertEqual(tool_answer("k", 200, h({}), "{}").value.kind, "unknown")
        self.assertEqual(tool_answer("k", 500, h({}), problem("response-too-large", 500)).value.kind, "rejected")
        reused = tool_answer("k", 422, h({}), problem("idempotency-key-reused", 422)).value
        self.assertEqual((reused.kind, reused.problem.slug), ("rejected", "idempotency-key-reused"))
        for s in (400, 401, 403, 404, 413, 415):
            self.assertEqual(tool_answer("k", s, h({}), "").value.kind, "rejected")
        self.assertEqual(lookup_answer("k", 404, h({}), "").value.kind, "not-found")
        self.assertIsInstance(lookup_answer("k", 503, h({}), ""), Retry)

    def test_retry_after_takes_seconds_or_an_http_date(self):
        self.assertEqual(retry_after_s("3"), 3.0)
        self.assertAlmostEqual(retry_after_s(formatdate(10, usegmt=True), now=4), 6.0)
        self.assertIsNone(retry_after_s("soon"))
