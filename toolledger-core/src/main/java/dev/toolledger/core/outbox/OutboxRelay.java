package dev.toolledger.core.outbox;

import dev.toolledger.core.outbox.Deliverer.DeliveryResult;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers committed outbox events, at least once each, with their stable id.
 *
 * <p>A failed attempt is retried after a capped exponential backoff with full jitter ({@code
 * random(0, min(cap, base * 2^attempt))}, or the recipient's {@code Retry-After} when it sends
 * one); after {@code maxAttempts} or a definitive refusal the event is {@link OutboxState#DEAD}:
 * visible and re-armable, never silently dropped. Several relays (one per node) may run against one
 * PostgreSQL ledger; each claims its own batch.
 *
 * <p>Order is not kept, not even per aggregate: a later event can be delivered while an earlier one
 * waits for its retry. Recipients must not depend on order (the inbox deduplicates; it does not
 * reorder).
 */
public final class OutboxRelay implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final OutboxStore store;
  private final Deliverer deliverer;
  private final String owner;
  private final int batchSize;
  private final Duration claimLease;
  private final Duration backoffBase;
  private final Duration backoffCap;
  private final int maxAttempts;
  private final Duration pollInterval;
  private ScheduledExecutorService scheduler;
  private volatile boolean stopping;

  private OutboxRelay(Builder b) {
    this.store = b.store;
    this.deliverer = b.deliverer;
    this.owner = b.owner;
    this.batchSize = b.batchSize;
    this.claimLease = b.claimLease;
    this.backoffBase = b.backoffBase;
    this.backoffCap = b.backoffCap;
    this.maxAttempts = b.maxAttempts;
    this.pollInterval = b.pollInterval;
  }

  public static Builder builder(OutboxStore store, Deliverer deliverer) {
    return new Builder(store, deliverer);
  }

  /**
   * Claims one batch of due events and attempts each once. When the relay is being {@linkplain
   * #close() closed} meanwhile, the events not yet attempted are released (no attempt counted, due
   * as before) instead of waiting out their claim. @return events claimed
   */
  public int runOnce() {
    // A token per pass, not just the node's name: a pass that stalled past its claim and a later
    // pass of the same node must not be able to mark each other's events.
    if (stopping) {
      return 0;
    }
    String claim = owner + "/" + UUID.randomUUID();
    List<OutboxEvent> batch = store.claimDue(claim, claimLease, batchSize);
    for (int i = 0; i < batch.size(); i++) {
      if (stopping) {
        release(batch.subList(i, batch.size()), claim);
        break;
      }
      attempt(batch.get(i), claim);
    }
    return batch.size();
  }

  /**
   * Runs a store call with the thread's interrupt cleared: {@link #close()} interrupts a delivery
   * that waits, and the outcome of that attempt and the release of the rest must still be written
   * (a pool refuses to lend a connection to an interrupted thread).
   */
  private static void uninterrupted(Runnable write) {
    boolean interrupted = Thread.interrupted();
    try {
      write.run();
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void release(List<OutboxEvent> unattempted, String claim) {
    boolean interrupted = Thread.interrupted();
    try {
      releaseEach(unattempted, claim);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void releaseEach(List<OutboxEvent> unattempted, String claim) {
    for (OutboxEvent event : unattempted) {
      try {
        store.release(event.id(), claim);
      } catch (RuntimeException e) {
        // Its claim's lease frees it later, as before.
        LOG.warn("could not release outbox event {} on stop: {}", event.id(), e.toString());
      }
    }
  }

  private void attempt(OutboxEvent event, String owner) {
    DeliveryResult result;
    try {
      result = deliverer.deliver(event);
    } catch (RuntimeException e) {
      result =
          new DeliveryResult.Retry(
              dev.toolledger.core.problem.FailureWords.of(e), java.util.Optional.empty());
    }
    DeliveryResult outcome = result;
    uninterrupted(() -> record(event, owner, outcome));
  }

  private void record(OutboxEvent event, String owner, DeliveryResult result) {
    int attempts = event.attempts() + 1;
    if (result instanceof DeliveryResult.Delivered) {
      store.markDelivered(event.id(), owner);
    } else if (result instanceof DeliveryResult.Refused refused) {
      LOG.warn(
          "outbox event {} refused by its recipient; it is DEAD: {}", event.id(), refused.reason());
      store.markDead(event.id(), owner, refused.reason());
    } else if (result instanceof DeliveryResult.Retry retry) {
      if (attempts >= maxAttempts) {
        LOG.warn(
            "outbox event {} failed {} attempts; it is DEAD: {}",
            event.id(),
            attempts,
            retry.reason());
        store.markDead(event.id(), owner, retry.reason());
      } else {
        Duration delay = retry.retryAfter().orElseGet(() -> backoff(attempts));
        store.markRetry(event.id(), owner, delay, retry.reason());
      }
    }
  }

  /** Full jitter: a uniform delay in [0, min(cap, base * 2^(attempt-1))]. */
  Duration backoff(int attempt) {
    long base = backoffBase.toMillis();
    long ceiling = Math.min(backoffCap.toMillis(), base << Math.min(attempt - 1, 30));
    return Duration.ofMillis(ceiling <= 0 ? 0 : ThreadLocalRandom.current().nextLong(ceiling + 1));
  }

  /** Runs {@link #runOnce()} on a background thread every poll interval (sooner while busy). */
  // Nothing reads the futures of start() and loop(): loop logs its own failures, close() ends it.
  @SuppressWarnings("FutureReturnValueIgnored")
  public synchronized OutboxRelay start() {
    if (scheduler != null) {
      return this;
    }
    stopping = false;
    scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "toolledger-outbox-relay");
              thread.setDaemon(true);
              return thread;
            });
    scheduler.schedule(this::loop, 0, TimeUnit.MILLISECONDS);
    return this;
  }

  @SuppressWarnings("FutureReturnValueIgnored") // as in start()
  private void loop() {
    int attempted = 0;
    try {
      attempted = runOnce();
    } catch (RuntimeException e) {
      LOG.warn("outbox relay pass failed; trying again: {}", e.toString());
    }
    ScheduledExecutorService current = scheduler;
    if (current != null && !current.isShutdown()) {
      long delay = attempted >= batchSize ? 0 : pollInterval.toMillis();
      current.schedule(this::loop, delay, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * Stops the relay: the event being delivered finishes (its delivery is interrupted if it waits),
   * and the rest of the batch is released for other relays at once.
   */
  @Override
  public synchronized void close() {
    stopping = true;
    if (scheduler != null) {
      scheduler.shutdownNow();
      try {
        scheduler.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      scheduler = null;
    }
  }

  /** Relay settings with documented defaults. */
  public static final class Builder {
    private final OutboxStore store;
    private final Deliverer deliverer;
    private String owner = "relay";
    private int batchSize = 32;
    private Duration claimLease = Duration.ofSeconds(60);
    private Duration backoffBase = Duration.ofSeconds(1);
    private Duration backoffCap = Duration.ofMinutes(5);
    private int maxAttempts = 12;
    private Duration pollInterval = Duration.ofMillis(500);

    private Builder(OutboxStore store, Deliverer deliverer) {
      this.store = Objects.requireNonNull(store, "store");
      this.deliverer = Objects.requireNonNull(deliverer, "deliverer");
    }

    /** The node's name, recorded on claims. Default "relay". */
    public Builder owner(String owner) {
      this.owner = owner;
      return this;
    }

    /** Events claimed per pass. Default 32. */
    public Builder batchSize(int batchSize) {
      this.batchSize = batchSize;
      return this;
    }

    /** How long a claim holds before another relay may take the event. Default 60 s. */
    public Builder claimLease(Duration claimLease) {
      this.claimLease = claimLease;
      return this;
    }

    /** Backoff between attempts: full jitter up to min(cap, base * 2^n). Default 1 s and 5 min. */
    public Builder backoff(Duration base, Duration cap) {
      this.backoffBase = base;
      this.backoffCap = cap;
      return this;
    }

    /** Attempts before an event is DEAD. Default 12. */
    public Builder maxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Pause between passes when there was nothing to do. Default 500 ms. */
    public Builder pollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
      return this;
    }

    public OutboxRelay build() {
      Objects.requireNonNull(owner, "owner must not be null");
      if (batchSize < 1) {
        throw new IllegalArgumentException("batchSize must be at least 1");
      }
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1");
      }
      for (Duration d : new Duration[] {claimLease, backoffBase, backoffCap, pollInterval}) {
        if (d == null || d.isNegative()) {
          throw new IllegalArgumentException("durations must be zero or positive");
        }
      }
      if (backoffCap.compareTo(backoffBase) < 0) {
        throw new IllegalArgumentException("backoff cap must not be below its base");
      }
      if (claimLease.isZero()) {
        throw new IllegalArgumentException("claimLease must be positive");
      }
      return new OutboxRelay(this);
    }
  }
}
