package dev.toolledger.testkit.pg;

import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The client's messages of one round trip, and the SQL they carry. */
final class PgRoundTrip {
  private final List<byte[]> bodies = new ArrayList<>();
  private final List<Integer> types = new ArrayList<>();
  private final List<String> sql = new ArrayList<>();

  void add(int type, byte[] body) {
    types.add(type);
    bodies.add(body);
  }

  void sql(String text) {
    sql.add(text);
  }

  /** Whether some SQL of the round trip is not blank (a pool's validation sends an empty query). */
  boolean hasStatement() {
    return sql.stream().anyMatch(s -> !s.isBlank());
  }

  boolean contains(String text) {
    if (text == null || text.isEmpty()) {
      return true;
    }
    String wanted = text.toLowerCase(Locale.ROOT);
    return sql.stream().anyMatch(s -> s.toLowerCase(Locale.ROOT).contains(wanted));
  }

  /** Whether a statement of the round trip is a {@code COMMIT} (or {@code END}). */
  boolean commits() {
    for (String text : sql) {
      for (String statement : text.split(";", -1)) {
        String s = statement.strip().toUpperCase(Locale.ROOT);
        if (s.equals("COMMIT") || s.startsWith("COMMIT ") || s.equals("END")) {
          return true;
        }
      }
    }
    return false;
  }

  void writeTo(DataOutputStream out) throws IOException {
    for (int i = 0; i < bodies.size(); i++) {
      out.write(types.get(i));
      out.writeInt(bodies.get(i).length + 4);
      out.write(bodies.get(i));
    }
  }
}
