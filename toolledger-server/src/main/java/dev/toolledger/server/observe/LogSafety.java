package dev.toolledger.server.observe;

import java.sql.SQLException;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Makes failures safe to log. An exception's message may carry what a tool or a database saw
 * (PostgreSQL's details quote the values of a failing row; a tool may put its input in its
 * message), so a logged failure keeps its classes, its SQLState and its stack frames, which say
 * what failed and where, and withholds every message.
 */
public final class LogSafety {
  private LogSafety() {}

  /** A copy of {@code failure} and its causes without their messages; null for null. */
  public static Throwable withoutMessages(Throwable failure) {
    return copy(failure, new IdentityHashMap<>());
  }

  private static Throwable copy(Throwable original, Map<Throwable, Throwable> seen) {
    if (original == null) {
      return null;
    }
    Throwable known = seen.get(original);
    if (known != null) {
      return known;
    }
    StringBuilder summary = new StringBuilder(original.getClass().getName());
    if (original instanceof SQLException sql && sql.getSQLState() != null) {
      summary.append(" (SQLState ").append(sql.getSQLState()).append(')');
    }
    summary.append(" [message withheld]");
    Redacted copy = new Redacted(summary.toString());
    seen.put(original, copy);
    copy.setStackTrace(original.getStackTrace());
    Throwable cause = original.getCause();
    if (cause != null && cause != original) {
      copy.initCause(copy(cause, seen));
    }
    for (Throwable suppressed : original.getSuppressed()) {
      copy.addSuppressed(copy(suppressed, seen));
    }
    return copy;
  }

  /** A failure whose message was withheld; its own message names the original class. */
  static final class Redacted extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Redacted(String summary) {
      super(summary);
    }
  }
}
