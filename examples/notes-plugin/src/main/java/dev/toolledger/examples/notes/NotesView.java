package dev.toolledger.examples.notes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ReadContext;
import dev.toolledger.api.ReadView;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Map;

/**
 * {@code GET /v1/notes[?after=ID][&limit=N]}: the caller's notes in id order, a page at a time
 * (default 100, at most 1000). {@code next} is the {@code after} value of the next page, or null.
 * Ids are the tenant's own note numbers (see {@link NotesTables}); a page is read with the index on
 * {@code (tenant, number)}.
 */
public final class NotesView implements ReadView {
  static final int DEFAULT_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  @Override
  public String path() {
    return "notes";
  }

  @Override
  public JsonNode read(ReadContext context, Map<String, String> query) throws Exception {
    long after = parse(query, "after", 0, 0, Long.MAX_VALUE);
    int limit = (int) parse(query, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ArrayNode notes = root.putArray("notes");
    long last = -1;
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement(
                "SELECT number, title, body FROM notes WHERE tenant = ? AND number > ?"
                    + " ORDER BY number LIMIT ?")) {
      ps.setString(1, context.tenant().value());
      ps.setLong(2, after);
      ps.setInt(3, limit + 1);
      try (ResultSet rs = ps.executeQuery()) {
        int rows = 0;
        while (rs.next()) {
          if (++rows > limit) {
            root.put("next", last);
            return root;
          }
          last = rs.getLong("number");
          notes
              .addObject()
              .put("id", last)
              .put("title", rs.getString("title"))
              .put("body", rs.getString("body"));
        }
      }
    }
    root.putNull("next");
    return root;
  }

  private static long parse(
      Map<String, String> query, String name, long fallback, long min, long max) {
    String raw = query.get(name);
    if (raw == null) {
      return fallback;
    }
    try {
      long value = Long.parseLong(raw);
      if (value < min || value > max) {
        throw new IllegalArgumentException(name + " must be between " + min + " and " + max);
      }
      return value;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be an integer");
    }
  }
}
