package dev.toolledger.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.Synchronous;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code guard-keyed-create} counts what it says: each call through the in-process guard, with the
 * same arguments every time, is a new action executed once on the node; how fast is not its
 * business.
 */
class GuardScenarioTest {
  @TempDir Path dir;

  @Test
  void eachCallThroughTheGuardIsOneNewOperationAndOneNote() throws Exception {
    Path file = dir.resolve("guard.db");
    int calls = 5;
    long notesBefore;
    long operationsBefore;
    try (Target target = Target.sqlite("sqlite-full", file, Synchronous.FULL);
        GuardKeyedCreate scenario = new GuardKeyedCreate(target, true)) {
      notesBefore = count(file, "SELECT COUNT(*) FROM notes");
      operationsBefore = count(file, "SELECT COUNT(*) FROM tl_operations");
      for (int i = 0; i < calls; i++) {
        scenario.run(0, i);
      }
    }
    assertThat(count(file, "SELECT COUNT(*) FROM notes")).isEqualTo(notesBefore + calls);
    assertThat(count(file, "SELECT COUNT(*) FROM tl_operations"))
        .isEqualTo(operationsBefore + calls);
    assertThat(
            count(
                file,
                "SELECT COUNT(*) FROM tl_operations WHERE state = 'COMPLETED'"
                    + " AND response_status = 201"))
        .isEqualTo(operationsBefore + calls);
  }

  private static long count(Path file, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
