package dev.toolledger.core.engine;

import dev.toolledger.core.store.LedgerStore;
import dev.toolledger.core.store.TransactionWork;
import dev.toolledger.core.store.TransientStoreException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs ledger write transactions with the engine's retry budget: a transaction that meets a
 * transient error (busy lock, serialization failure, deadlock, dropped connection) left nothing
 * behind, so it runs again after a full-jitter pause, up to the configured attempts, and only while
 * another attempt as long as the last one would end within the transaction budget: an attempt that
 * failed slowly (a stalled link's socket timeout, an exhausted pool) is not repeated five times
 * over, and a caller waits about the longer of the budget and one attempt.
 */
final class Writes {
  private final LedgerStore store;
  private final EngineConfig config;

  /**
   * Records this node gave a retention (completed operations), counted after their transaction
   * committed: the pace a sweep must at least match to keep up with expiry ({@link SweepPacing}).
   */
  final LongAdder expiring = new LongAdder();

  Writes(LedgerStore store, EngineConfig config) {
    this.store = store;
    this.config = config;
  }

  /**
   * @throws TransientStoreException when every attempt met a transient error
   */
  <T> T run(TransactionWork<T> work) {
    return run(work, config.transactionAttempts());
  }

  <T> T run(TransactionWork<T> work, int attempts) {
    long started = System.nanoTime();
    long budget = config.transactionBudget().toNanos();
    for (int attempt = 1; ; attempt++) {
      long attemptStarted = System.nanoTime();
      try {
        return store.inTransaction(work);
      } catch (TransientStoreException e) {
        long now = System.nanoTime();
        long pause = backoff(attempt);
        // The next attempt may take as long as this one did: begin it only if that still ends
        // within the budget.
        long next = Math.max(now - attemptStarted, pause * 1_000_000L);
        if (attempt >= attempts || now - started + next > budget) {
          throw e;
        }
        sleep(pause);
      }
    }
  }

  long backoff(int attempt) {
    long cap = config.retryCap().toMillis();
    long ceiling = Math.min(cap, config.retryBase().toMillis() << Math.min(attempt - 1, 20));
    return ceiling <= 0 ? 0 : ThreadLocalRandom.current().nextLong(ceiling + 1);
  }

  static void sleep(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new dev.toolledger.core.ToolLedgerException("interrupted while waiting", e);
    }
  }
}
