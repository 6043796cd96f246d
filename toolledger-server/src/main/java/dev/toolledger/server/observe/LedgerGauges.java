package dev.toolledger.server.observe;

import dev.toolledger.jdbc.ops.Attention;
import dev.toolledger.jdbc.ops.OperationCatalog;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gauges read from the database: operations {@code UNKNOWN}, operations {@code IN_PROGRESS} for
 * longer than a threshold, the outbox's depth ({@code PENDING}) and its {@code DEAD} events.
 *
 * <p>One read of four small partial-index counts serves every gauge, and it happens at most once
 * per refresh interval whatever the number of scrapes or scrapers; concurrent scrapes within the
 * interval get the cached numbers. When the read fails the gauges are NaN until one succeeds.
 */
final class LedgerGauges {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerGauges.class);

  private final OperationCatalog catalog;
  private final Clock clock;
  private final Duration staleAfter;
  private final long refreshNanos;
  private final LongSupplier ticker;

  private Attention last;
  private long readAt;
  private boolean everRead;
  private boolean failing;

  LedgerGauges(
      OperationCatalog catalog,
      Clock clock,
      Duration staleAfter,
      Duration refresh,
      LongSupplier ticker) {
    this.catalog = catalog;
    this.clock = clock;
    this.staleAfter = staleAfter;
    this.refreshNanos = refresh.toNanos();
    this.ticker = ticker;
  }

  void bindTo(MeterRegistry registry) {
    gauge(
        registry,
        "toolledger.operations.unknown",
        "Operations whose effect may or may not have happened; an operator must resolve them",
        Attention::unknown);
    gauge(
        registry,
        "toolledger.operations.stale.in.progress",
        "Operations IN_PROGRESS for longer than " + staleAfter,
        Attention::staleInProgress);
    gauge(
        registry,
        "toolledger.outbox.pending",
        "Outbox events waiting for a delivery attempt (the outbox's depth)",
        Attention::outboxPending);
    gauge(
        registry,
        "toolledger.outbox.dead",
        "Outbox events whose attempts ran out or that were refused; re-arm them",
        Attention::outboxDead);
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String description,
      java.util.function.ToLongFunction<Attention> field) {
    ToDoubleFunction<LedgerGauges> read =
        gauges -> {
          Attention current = gauges.current();
          return current == null ? Double.NaN : field.applyAsLong(current);
        };
    // Strong: the registry would otherwise hold these gauges weakly and they would turn NaN.
    Gauge.builder(name, this, read)
        .description(description)
        .strongReference(true)
        .register(registry);
  }

  /** The cached counts, read again when older than the refresh interval; null while failing. */
  synchronized Attention current() {
    long now = ticker.getAsLong();
    if (everRead && now - readAt < refreshNanos) {
      return last;
    }
    everRead = true;
    readAt = now;
    try {
      last = catalog.attention(clock.instant().minus(staleAfter));
      if (failing) {
        LOG.info("the ledger's gauges can be read again");
        failing = false;
      }
    } catch (RuntimeException e) {
      last = null;
      if (!failing) {
        LOG.atWarn()
            .addKeyValue("error", "gauge-read-failed")
            .log("cannot read the ledger's gauges; they are NaN until a read succeeds: {}", e);
        failing = true;
      }
    }
    return last;
  }
}
