package dev.toolledger.jdbc.internal;

import java.util.Locale;
import java.util.Set;

/**
 * Finds SQL text that would begin, end, commit or roll back a transaction ({@code BEGIN}, {@code
 * START TRANSACTION}, {@code COMMIT}, {@code END}, {@code ROLLBACK} without {@code TO}, {@code
 * ABORT}, {@code PREPARE TRANSACTION}), at the start of any statement of the text (PostgreSQL runs
 * every statement of a text given to {@code Statement.execute}). Literals, quoted identifiers and
 * comments are skipped. Savepoints ({@code SAVEPOINT}, {@code RELEASE}, {@code ROLLBACK TO}) stay
 * allowed.
 *
 * <p>A check of the text, not a proof: what a function or procedure does on the server is not seen
 * (PostgreSQL refuses a transaction's end inside a function, and inside a transaction block a
 * procedure's too).
 */
final class TransactionControl {
  private static final Set<String> ENDS =
      Set.of("BEGIN", "START", "COMMIT", "END", "ROLLBACK", "ABORT", "PREPARE");

  private TransactionControl() {}

  /** The transaction-control word that starts a statement of {@code sql}, or null. */
  static String find(String sql) {
    if (sql == null) {
      return null;
    }
    int i = 0;
    int n = sql.length();
    boolean statementStart = true;
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c) || c == '(') {
        i++;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        int eol = sql.indexOf('\n', i);
        i = eol < 0 ? n : eol + 1;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int close = sql.indexOf("*/", i + 2);
        i = close < 0 ? n : close + 2;
      } else if (c == '\'' || c == '"' || c == '`') {
        int close = i + 1;
        while (close < n) {
          if (sql.charAt(close) == c) {
            if (close + 1 < n && sql.charAt(close + 1) == c) {
              close += 2;
              continue;
            }
            break;
          }
          close++;
        }
        i = close + 1;
        statementStart = false;
      } else if (c == '$' && dollarQuoteEnd(sql, i) > 0) {
        // PostgreSQL's $tag$...$tag$ (a function or DO body): its ';' and words are not ours.
        i = dollarQuoteEnd(sql, i);
        statementStart = false;
      } else if (c == ';') {
        statementStart = true;
        i++;
      } else if (Character.isLetter(c)) {
        int end = i;
        while (end < n && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
          end++;
        }
        if (statementStart) {
          String word = sql.substring(i, end).toUpperCase(Locale.ROOT);
          if (ENDS.contains(word) && endsTransaction(word, sql, end)) {
            return word;
          }
        }
        statementStart = false;
        i = end;
      } else {
        statementStart = false;
        i++;
      }
    }
    return null;
  }

  /** The index after the $tag$...$tag$ string that opens at {@code at}, or -1 when none does. */
  private static int dollarQuoteEnd(String sql, int at) {
    if (at > 0 && (Character.isLetterOrDigit(sql.charAt(at - 1)) || sql.charAt(at - 1) == '_')) {
      return -1;
    }
    int close = at + 1;
    while (close < sql.length()
        && (Character.isLetter(sql.charAt(close)) || sql.charAt(close) == '_')) {
      close++;
    }
    if (close >= sql.length() || sql.charAt(close) != '$') {
      return -1;
    }
    String tag = sql.substring(at, close + 1);
    int end = sql.indexOf(tag, close + 1);
    return end < 0 ? sql.length() : end + tag.length();
  }

  /** ROLLBACK TO and PREPARE of a statement are not ends of the transaction. */
  private static boolean endsTransaction(String word, String sql, int after) {
    String rest = sql.substring(after).stripLeading().toUpperCase(Locale.ROOT);
    return switch (word) {
      case "ROLLBACK" -> {
        String tail = rest.startsWith("TRANSACTION") ? rest.substring(11).stripLeading() : rest;
        tail = tail.startsWith("WORK") ? tail.substring(4).stripLeading() : tail;
        yield !tail.startsWith("TO");
      }
      case "PREPARE" -> rest.startsWith("TRANSACTION");
      default -> true;
    };
  }
}
