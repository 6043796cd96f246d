package dev.toolledger.server.observe;

import com.zaxxer.hikari.HikariDataSource;
import dev.toolledger.core.engine.OutcomeListener;
import dev.toolledger.core.engine.RecoveryReport;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.ops.OperationCatalog;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jetty.JettyServerThreadPoolMetrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The metrics of one node, in Prometheus format: the ledger's own (requests, effects, latencies,
 * and gauges read from the database at most every few seconds), the connection pool's, the HTTP
 * thread pool's and the JVM's. See {@code docs/operations.md} for every name and label.
 */
public final class Observability implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Observability.class);

  /** Default age of an {@code IN_PROGRESS} operation that counts as stale: 5 minutes. */
  public static final Duration DEFAULT_STALE_AFTER = Duration.ofMinutes(5);

  /** How long the gauges read from the database are reused: 5 seconds. */
  public static final Duration GAUGE_REFRESH = Duration.ofSeconds(5);

  private final PrometheusMeterRegistry registry;
  private final LedgerMetrics ledger;
  private final JvmGcMetrics gc;
  private JettyServerThreadPoolMetrics jetty;

  private Observability(PrometheusMeterRegistry registry, LedgerMetrics ledger, JvmGcMetrics gc) {
    this.registry = registry;
    this.ledger = ledger;
    this.gc = gc;
  }

  /**
   * The metrics of a node on {@code store}.
   *
   * @param knownTool whether a name is a registered tool's (other names are counted as one label)
   * @param staleAfter age from which an {@code IN_PROGRESS} operation counts as stale
   */
  public static Observability create(
      JdbcLedgerStore store, Predicate<String> knownTool, Clock clock, Duration staleAfter) {
    return create(store, knownTool, clock, staleAfter, null);
  }

  /**
   * As {@link #create(JdbcLedgerStore, Predicate, Clock, Duration)}, and the ledger's own meters
   * (requests, effects, latencies, the gauges read from the database) are also registered in {@code
   * application}, the embedding application's registry (Spring Boot's, say). The JVM's and the
   * pool's meters stay in the node's registry only: the application reports those itself.
   *
   * @param application the application's registry, or null for the node's registry alone
   */
  public static Observability create(
      JdbcLedgerStore store,
      Predicate<String> knownTool,
      Clock clock,
      Duration staleAfter,
      MeterRegistry application) {
    Objects.requireNonNull(store, "store");
    if (staleAfter.isNegative() || staleAfter.isZero()) {
      throw new IllegalArgumentException("staleAfter must be positive");
    }
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MeterRegistry ledgerMeters = registry;
    if (application != null) {
      CompositeMeterRegistry both = new CompositeMeterRegistry();
      both.add(registry);
      both.add(application);
      ledgerMeters = both;
    }
    new LedgerGauges(OperationCatalog.of(store), clock, staleAfter, GAUGE_REFRESH, System::nanoTime)
        .bindTo(ledgerMeters);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    new FileDescriptorMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    bindPool(store, registry);
    return new Observability(registry, new LedgerMetrics(ledgerMeters, knownTool), gc);
  }

  /**
   * The metrics of a node whose HTTP side is mounted in an application that has its own registry
   * (the Spring Boot starter): the ledger's own meters are recorded in {@code application} only,
   * and no JVM, process or pool meters are bound, since the application reports those itself and
   * nothing scrapes the node's registry. Recording them in the node's registry as well did every
   * recording twice, once where nobody reads it.
   */
  public static Observability forApplication(
      JdbcLedgerStore store,
      Predicate<String> knownTool,
      Clock clock,
      Duration staleAfter,
      MeterRegistry application) {
    Objects.requireNonNull(store, "store");
    Objects.requireNonNull(application, "application");
    if (staleAfter.isNegative() || staleAfter.isZero()) {
      throw new IllegalArgumentException("staleAfter must be positive");
    }
    new LedgerGauges(OperationCatalog.of(store), clock, staleAfter, GAUGE_REFRESH, System::nanoTime)
        .bindTo(application);
    return new Observability(
        new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
        new LedgerMetrics(application, knownTool),
        null);
  }

  private static void bindPool(JdbcLedgerStore store, PrometheusMeterRegistry registry) {
    if (store.borrowsDataSource()) {
      // The application's pool reports to the application's registry, not to the ledger's.
      return;
    }
    try {
      store.dataSource().unwrap(HikariDataSource.class).setMetricRegistry(registry);
    } catch (SQLException | IllegalStateException e) {
      // The pool already reports to another registry (a second node started on the same store).
      LOG.debug("the connection pool's metrics stay where they are: {}", e.getMessage());
    }
  }

  /** The listener that counts the engine's outcomes and effects. */
  public OutcomeListener listener() {
    return ledger;
  }

  /**
   * Counts the settlements of each recovery pass ({@code toolledger_recovery_settlements_total}).
   */
  public void onRecovery(RecoveryReport report) {
    ledger.onRecovery(report);
  }

  /** Adds the HTTP server's thread pool (size, busy and idle threads, queued jobs). */
  public synchronized void bindHttpThreads(ThreadPool threads) {
    if (jetty == null) {
      jetty = new JettyServerThreadPoolMetrics(threads, List.of());
      jetty.bindTo(registry);
    }
  }

  /** The registry, for tools' and embedders' own meters. */
  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Every meter in the Prometheus text format (version 0.0.4). */
  public String scrape() {
    return registry.scrape();
  }

  @Override
  public synchronized void close() {
    if (gc != null) {
      gc.close();
    }
    if (jetty != null) {
      try {
        jetty.close();
      } catch (Exception e) {
        LOG.debug("the HTTP thread pool's metrics did not close cleanly: {}", e.toString());
      }
    }
    registry.close();
  }
}
