package dev.toolledger.jdbc.inbox;

import dev.toolledger.jdbc.migration.Migration;
import dev.toolledger.jdbc.migration.SchemaMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The recipient's half of at-least-once delivery: deduplicates events by their stable id inside the
 * recipient's own transaction.
 *
 * <p>Call {@link #firstDelivery} in the same transaction as the effect the event causes. It inserts
 * the event id under a primary key: the first delivery inserts it and must perform the effect; a
 * redelivery (the sender never heard the acknowledgement, or a second relay got there too) inserts
 * nothing and must not. A concurrent duplicate waits on the key and then sees it as a redelivery,
 * so the effect happens once per event id. Works on SQLite and PostgreSQL; migrate {@link
 * #migrations()} beside the recipient's own tables.
 */
public final class Inbox {
  private static final Pattern EVENT_ID = Pattern.compile("[\\x21-\\x7E]{1,255}");

  private Inbox() {}

  /** The inbox table, component {@code inbox}. */
  public static SchemaMigrations migrations() {
    return SchemaMigrations.of(
        "inbox",
        Migration.portable(
            1,
            "received event ids",
            "CREATE TABLE tl_inbox (event_id TEXT PRIMARY KEY, source TEXT NOT NULL,"
                + " received_at BIGINT NOT NULL)"));
  }

  /**
   * Records an event id in the caller's open transaction.
   *
   * @return true for the first delivery of this id (perform the effect), false for a redelivery (do
   *     nothing but acknowledge)
   */
  public static boolean firstDelivery(
      Connection transaction, String eventId, String source, Instant receivedAt)
      throws SQLException {
    Objects.requireNonNull(transaction, "transaction");
    if (eventId == null || !EVENT_ID.matcher(eventId).matches()) {
      throw new IllegalArgumentException("an event id is 1 to 255 visible ASCII characters");
    }
    try (PreparedStatement ps =
        transaction.prepareStatement(
            "INSERT INTO tl_inbox (event_id, source, received_at) VALUES (?, ?, ?)"
                + " ON CONFLICT (event_id) DO NOTHING")) {
      ps.setString(1, eventId);
      ps.setString(2, source);
      ps.setLong(3, receivedAt.toEpochMilli());
      return ps.executeUpdate() == 1;
    }
  }
}
