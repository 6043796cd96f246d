package dev.toolledger.core.engine;

import java.time.Duration;
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
    return new RecoveryWorker(
        BackgroundPass.start(
            "toolledger-recovery",
            interval,
            "recovery",
            LOG,
            () -> {
              RecoveryReport report = engine.recoverExpiredClaims(batchSize);
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
