package dev.toolledger.server;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SeedScenariosOnSqliteTest extends SeedScenariosHttpTest {
  @TempDir Path dir;

  @Override
  ServerFixture startServer() {
    return ServerFixture.start(dir);
  }
}
