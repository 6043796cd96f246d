package dev.toolledger.declarative.http;

import dev.toolledger.api.ExternalTool;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

class SqliteHttpToolTest extends HttpToolContractTest {
  @TempDir Path databaseDir;

  @Override
  Nodes openNodes(ExternalTool tool) {
    return Nodes.sqlite(databaseDir.resolve("ledger.db"), tool);
  }
}
