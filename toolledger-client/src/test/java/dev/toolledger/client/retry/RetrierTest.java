package dev.toolledger.client.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Properties of the retrier, checked over many random trials on fake time: nothing here sleeps.
 * Every trial is reproducible from its seed, which the failure message names.
 */
class RetrierTest {
  private static final int TRIALS = 2_000;

  private static RetryPolicy.Builder on(FakeTime time, long seed) {
    return RetryPolicy.builder()
        .ticker(time)
        .sleeper(time)
        .random(new SplittableRandom(seed))
        .budget(1e9, 0, 0);
  }

  @Test
  void everyDelayStaysWithinFullJitterBounds() {
    SplittableRandom trials = new SplittableRandom(42);
    for (int trial = 0; trial < TRIALS; trial++) {
      long seed = trials.nextLong();
      FakeTime time = new FakeTime();
      Duration base = Duration.ofMillis(1 + trials.nextInt(500));
      Duration cap = base.multipliedBy(1 + trials.nextInt(100));
      int maxAttempts = 1 + trials.nextInt(20);
      RetryPolicy policy =
          on(time, seed)
              .maxAttempts(maxAttempts)
              .backoff(base, cap)
              .deadline(Duration.ofDays(1))
              .build();

      RetryResult<String> result =
          Retrier.of(policy).run((n, remaining) -> AttemptResult.retry("refused"));

      assertThat(result.attempts()).as("seed %d", seed).isEqualTo(maxAttempts);
      assertThat(time.sleeps).as("seed %d", seed).hasSize(maxAttempts - 1);
      for (int n = 0; n < time.sleeps.size(); n++) {
        long ceiling = Math.min(cap.toNanos(), base.toNanos() * (1L << Math.min(n, 40)));
        assertThat(time.sleeps.get(n).toNanos())
            .as("seed %d, retry %d", seed, n)
            .isBetween(0L, ceiling);
      }
    }
  }

  @Test
  void jitterSpreadsDelaysOverTheWholeRangeRatherThanWaitingTheMaximum() {
    FakeTime time = new FakeTime();
    Duration bound = Duration.ofSeconds(1);
    RetryPolicy policy =
        on(time, 7).maxAttempts(10_001).backoff(bound, bound).deadline(Duration.ofDays(30)).build();

    Retrier.of(policy).run((n, remaining) -> AttemptResult.retry("refused"));

    long below10 = time.sleeps.stream().filter(d -> d.toMillis() < 100).count();
    long above90 = time.sleeps.stream().filter(d -> d.toMillis() >= 900).count();
    double meanMillis = time.sleeps.stream().mapToLong(Duration::toMillis).average().orElseThrow();
    assertThat(time.sleeps).hasSize(10_000);
    assertThat(below10).isBetween(800L, 1200L);
    assertThat(above90).isBetween(800L, 1200L);
    assertThat(meanMillis).isBetween(480.0, 520.0);
  }

  @Test
  void noAttemptStartsAtOrAfterTheDeadlineAndNoSleepCrossesIt() {
    SplittableRandom trials = new SplittableRandom(4242);
    for (int trial = 0; trial < TRIALS; trial++) {
      long seed = trials.nextLong();
      FakeTime time = new FakeTime();
      Duration deadline = Duration.ofMillis(1 + trials.nextInt(5_000));
      RetryPolicy policy =
          on(time, seed)
              .maxAttempts(1 + trials.nextInt(50))
              .backoff(Duration.ofMillis(1 + trials.nextInt(100)), Duration.ofMillis(2_000))
              .deadline(deadline)
              .build();
      long start = time.nanos();
      long end = start + deadline.toNanos();
      List<Long> starts = new ArrayList<>();
      List<Duration> remainders = new ArrayList<>();
      SplittableRandom work = new SplittableRandom(seed);

      RetryResult<String> result =
          Retrier.of(policy)
              .run(
                  (n, remaining) -> {
                    starts.add(time.nanos());
                    remainders.add(remaining);
                    // Each attempt takes a random time, sometimes well past the deadline.
                    time.advance(Duration.ofMillis(work.nextInt(1_500)));
                    Optional<Duration> retryAfter =
                        work.nextInt(4) == 0
                            ? Optional.of(Duration.ofMillis(work.nextInt(3_000)))
                            : Optional.empty();
                    return AttemptResult.retryAfter("timed out", retryAfter);
                  });

      assertThat(result).as("seed %d", seed).isInstanceOf(RetryResult.GaveUp.class);
      assertThat(starts).as("seed %d", seed).isNotEmpty().allMatch(t -> t < end);
      for (int i = 0; i < starts.size(); i++) {
        assertThat(remainders.get(i).toNanos())
            .as("seed %d: remaining time handed to attempt %d", seed, i + 1)
            .isEqualTo(end - starts.get(i));
      }
      assertThat(time.sleepEnds).as("seed %d", seed).allMatch(t -> t < end);
    }
  }

  @Test
  void definitiveAnswerIsReturnedOnTheFirstAttemptWithoutSleeping() {
    FakeTime time = new FakeTime();
    AtomicInteger calls = new AtomicInteger();

    RetryResult<String> result =
        Retrier.of(on(time, 1).build())
            .run(
                (n, remaining) -> {
                  calls.incrementAndGet();
                  return AttemptResult.done("422 idempotency-key-reused");
                });

    assertThat(result).isEqualTo(new RetryResult.Answered<>("422 idempotency-key-reused", 1));
    assertThat(calls).hasValue(1);
    assertThat(time.sleeps).isEmpty();
  }

  @Test
  void retryAfterLongerThanTheBackoffIsWaitedInFull() {
    FakeTime time = new FakeTime();
    RetryPolicy policy =
        on(time, 3)
            .maxAttempts(3)
            .backoff(Duration.ofMillis(10), Duration.ofMillis(20))
            .deadline(Duration.ofSeconds(30))
            .build();
    AtomicInteger calls = new AtomicInteger();

    RetryResult<String> result =
        Retrier.of(policy)
            .run(
                (n, remaining) ->
                    calls.incrementAndGet() < 3
                        ? AttemptResult.retryAfter(
                            "HTTP 503 ledger-busy", Optional.of(Duration.ofSeconds(2)))
                        : AttemptResult.done("201"));

    assertThat(result).isEqualTo(new RetryResult.Answered<>("201", 3));
    assertThat(time.sleeps).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2));
  }

  @Test
  void retryAfterShorterThanTheBackoffDoesNotShortenIt() {
    SplittableRandom trials = new SplittableRandom(11);
    for (int trial = 0; trial < 200; trial++) {
      FakeTime time = new FakeTime();
      RetryPolicy policy =
          on(time, trials.nextLong())
              .maxAttempts(2)
              .backoff(Duration.ofSeconds(1), Duration.ofSeconds(1))
              .build();
      Duration asked = Duration.ofMillis(trials.nextInt(1_000));

      Retrier.of(policy)
          .run((n, remaining) -> AttemptResult.retryAfter("in progress", Optional.of(asked)));

      assertThat(time.sleeps).hasSize(1);
      assertThat(time.sleeps.get(0)).isGreaterThanOrEqualTo(asked);
    }
  }

  @Test
  void retryAfterThatWouldCrossTheDeadlineStopsWithoutSleeping() {
    FakeTime time = new FakeTime();
    RetryPolicy policy = on(time, 5).maxAttempts(10).deadline(Duration.ofSeconds(5)).build();
    AtomicInteger calls = new AtomicInteger();

    RetryResult<String> result =
        Retrier.of(policy)
            .run(
                (n, remaining) -> {
                  calls.incrementAndGet();
                  return AttemptResult.retryAfter(
                      "HTTP 409 operation-in-progress", Optional.of(Duration.ofSeconds(5)));
                });

    assertThat(result)
        .isEqualTo(
            new RetryResult.GaveUp<>(
                StopReason.RETRY_AFTER_PAST_DEADLINE, "HTTP 409 operation-in-progress", 1));
    assertThat(calls).hasValue(1);
    assertThat(time.sleeps).isEmpty();
  }

  @Test
  void budgetCapsTheExtraLoadOfAThousandCallsAgainstADeadEndpoint() {
    FakeTime time = new FakeTime();
    RetryPolicy policy =
        RetryPolicy.builder().ticker(time).sleeper(time).random(new SplittableRandom(9)).build();
    Retrier retrier = Retrier.of(policy);
    AtomicInteger attempts = new AtomicInteger();
    int calls = 1_000;
    List<StopReason> reasons = new ArrayList<>();

    for (int call = 0; call < calls; call++) {
      RetryResult<String> result =
          retrier.run(
              (n, remaining) -> {
                attempts.incrementAndGet();
                return AttemptResult.retry("transport failure (ConnectException)");
              });
      reasons.add(((RetryResult.GaveUp<String>) result).reason());
    }

    double spare = policy.budgetTokens() - policy.budgetFloor();
    // Without the budget: 1000 calls * 5 attempts = 5000 attempts.
    assertThat(attempts.get()).isBetween(calls + 1, calls + (int) Math.ceil(spare));
    assertThat(attempts.get()).isLessThan((int) (calls * 1.02));
    assertThat(reasons).filteredOn(r -> r == StopReason.BUDGET_EXHAUSTED).hasSizeGreaterThan(990);
  }

  @Test
  void answersRefillTheBudgetSoRetriesResumeAfterAnOutage() {
    FakeTime time = new FakeTime();
    RetryPolicy policy =
        RetryPolicy.builder()
            .ticker(time)
            .sleeper(time)
            .random(new SplittableRandom(9))
            .budget(10, 5, 0.5)
            .build();
    Retrier retrier = Retrier.of(policy);
    for (int i = 0; i < 100; i++) {
      retrier.run((n, remaining) -> AttemptResult.retry("down"));
    }
    assertThat(retrier.budgetTokens()).isLessThanOrEqualTo(5.0);
    RetryResult<String> stillDown = retrier.run((n, remaining) -> AttemptResult.retry("down"));
    assertThat(stillDown.attempts()).isEqualTo(1);

    for (int i = 0; i < 4; i++) {
      retrier.run((n, remaining) -> AttemptResult.done("ok"));
    }
    AtomicInteger attempts = new AtomicInteger();
    RetryResult<String> recovered =
        retrier.run(
            (n, remaining) ->
                attempts.incrementAndGet() == 1
                    ? AttemptResult.retry("lost response")
                    : AttemptResult.done("ok"));

    assertThat(recovered).isEqualTo(new RetryResult.Answered<>("ok", 2));
  }

  @Test
  void interruptedCallerStopsRetryingAndKeepsItsInterruptFlag() {
    FakeTime time = new FakeTime();
    try {
      RetryResult<String> result =
          Retrier.of(on(time, 1).build())
              .run(
                  (n, remaining) -> {
                    Thread.currentThread().interrupt();
                    return AttemptResult.retry("interrupted while waiting for the answer");
                  });

      assertThat(result).isInstanceOf(RetryResult.GaveUp.class);
      assertThat(((RetryResult.GaveUp<String>) result).reason()).isEqualTo(StopReason.INTERRUPTED);
      assertThat(result.attempts()).isEqualTo(1);
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
  }

  @Test
  void hugeRetryAfterStopsTheRetrierInsteadOfOverflowing() {
    FakeTime time = new FakeTime();
    RetryResult<String> result =
        Retrier.of(on(time, 1).build())
            .run(
                (n, remaining) ->
                    AttemptResult.retryAfter(
                        "busy", Optional.of(Duration.ofSeconds(Long.MAX_VALUE / 2))));

    assertThat(((RetryResult.GaveUp<String>) result).reason())
        .isEqualTo(StopReason.RETRY_AFTER_PAST_DEADLINE);
  }
}
