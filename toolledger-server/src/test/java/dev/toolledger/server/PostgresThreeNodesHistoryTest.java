package dev.toolledger.server;

import dev.toolledger.jdbc.testing.PostgresTestDatabase;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** The history check across three nodes on one PostgreSQL. */
class PostgresThreeNodesHistoryTest extends HistoryCheckTest {
  PostgresTestDatabase database;
  Cluster cluster;

  @BeforeEach
  void start() {
    database = PostgresTestDatabase.create();
    cluster = Cluster.postgres(database, 3, UnaryOperator.identity());
  }

  @AfterEach
  void stop() {
    cluster.close();
    database.close();
  }

  @Override
  Cluster cluster() {
    return cluster;
  }
}
