package dev.toolledger.core.engine;

import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs {@link LedgerEngine#recoverExpiredClaims} in the background at a fixed interval. */
public final class RecoveryWorker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecoveryWorker.class);

  /** Default pause between passes: 2 seconds. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(2);

  private final BackgroundPass pass;

  private RecoveryWorker(BackgroundPass pass) {
    this.pass = pass;
  }

  public static RecoveryWorker start(LedgerEngine engine, Duration interval, int batchSize) {
    return start(engine, interval, batchSize, report -> {});
  }

  /**
   * Starts the worker; {@code onPass} hears every pass's report (for metrics), on the worker's
   * thread. It must be fast and must not throw.
   */
  public static RecoveryWorker start(
      LedgerEngine engine, Duration interval, int batchSize, Consumer<RecoveryReport> onPass) {
    return new RecoveryWorker(
        BackgroundPass.start(
            "toolledger-recovery",
            interval,
            "recovery",
            LOG,
            () -> {
              RecoveryReport report = engine.recoverExpiredClaims(batchSize);
              try {
                onPass.accept(report);
              } catch (RuntimeException e) {
                LOG.warn("a recovery listener threw; ignoring it", e);
              }
              if (report.examined() > 0) {
                LOG.info("recovery pass: {}", report);
              }
            }));
  }

  @Override
  public void close() {
    pass.close();
  }
}
