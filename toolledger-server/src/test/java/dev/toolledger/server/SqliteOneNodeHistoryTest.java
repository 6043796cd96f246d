package dev.toolledger.server;

import java.nio.file.Path;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/** The history check on one node over a SQLite file. */
class SqliteOneNodeHistoryTest extends HistoryCheckTest {
  @TempDir Path dir;
  Cluster cluster;

  @BeforeEach
  void start() {
    cluster = Cluster.sqlite(dir.resolve("ledger.db"), UnaryOperator.identity());
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  @Override
  Cluster cluster() {
    return cluster;
  }
}
