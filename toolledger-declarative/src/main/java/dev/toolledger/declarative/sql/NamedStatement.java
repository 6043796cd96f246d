package dev.toolledger.declarative.sql;

import java.util.ArrayList;
import java.util.List;

/**
 * One SQL statement with {@code :name} parameters, rewritten to JDBC {@code ?} placeholders.
 *
 * <p>The scanner skips what is not code: string literals ({@code '...'} with {@code ''}, and
 * PostgreSQL's {@code E'...'} with backslash escapes), quoted identifiers ({@code "..."}, {@code
 * `...`}), comments ({@code --} to the end of the line, {@code /* ... *}{@code /}), PostgreSQL
 * dollar-quoted strings ({@code $tag$...$tag$}) and casts ({@code ::text}). Values are never
 * spliced into the text: every parameter becomes a placeholder bound by the driver.
 *
 * @param jdbcSql the statement with a {@code ?} for every parameter occurrence, without a trailing
 *     {@code ;}
 * @param parameters the parameter name of every placeholder, in order (a name used twice appears
 *     twice)
 * @param returning whether the statement has a {@code RETURNING} clause
 * @param errors what makes the text unusable (several statements, positional placeholders,
 *     unterminated literals or comments); empty when it is usable
 * @param words the statement's words outside literals and comments, upper-cased, in order
 * @param identifiers every name the statement uses, bare words and the text of quoted identifiers,
 *     lower-cased
 */
record NamedStatement(
    String jdbcSql,
    List<String> parameters,
    boolean returning,
    List<String> errors,
    List<String> words,
    List<String> identifiers) {
  NamedStatement {
    parameters = List.copyOf(parameters);
    errors = List.copyOf(errors);
    words = List.copyOf(words);
    identifiers = List.copyOf(identifiers);
  }

  /** The first word, upper-cased ({@code INSERT}, {@code SELECT}, ...), or empty. */
  String firstWord() {
    return words.isEmpty() ? "" : words.get(0);
  }

  /**
   * Whether the statement reads rows without changing any: a {@code SELECT}, or a {@code WITH}
   * whose parts are all reads.
   */
  boolean reads() {
    return switch (firstWord()) {
      case "SELECT" -> true;
      case "WITH" ->
          !words.contains("INSERT") && !words.contains("UPDATE") && !words.contains("DELETE");
      default -> false;
    };
  }

  static NamedStatement parse(String sql) {
    return new Scanner(sql).scan();
  }

  private static final class Scanner {
    private final String sql;
    private final StringBuilder out = new StringBuilder();
    private final List<String> parameters = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final List<String> words = new ArrayList<>();
    private final List<String> identifiers = new ArrayList<>();
    private boolean returning;
    private int i;

    Scanner(String sql) {
      this.sql = sql;
    }

    NamedStatement scan() {
      while (i < sql.length()) {
        char c = sql.charAt(i);
        if (c == '\'') {
          quoted('\'', false, "a string literal");
        } else if (c == '"' || c == '`') {
          int start = i;
          quoted(c, false, "a quoted identifier");
          if (i - 1 > start + 1) {
            identifiers.add(sql.substring(start + 1, i - 1).toLowerCase(java.util.Locale.ROOT));
          }
        } else if (c == '-' && next() == '-') {
          lineComment();
        } else if (c == '/' && next() == '*') {
          blockComment();
        } else if (c == '$' && !identifierPart(previous())) {
          dollar();
        } else if (c == '?') {
          errors.add(
              "'?' at character "
                  + (i + 1)
                  + " is not supported: name every parameter (:name), and write PostgreSQL's"
                  + " jsonb operators ? ?| ?& as jsonb_exists(...) and its relatives");
          out.append(c);
          i++;
        } else if (c == ':' && next() == ':') {
          out.append("::");
          i += 2;
        } else if (c == ':' && identifierStart(next())) {
          parameter();
        } else if (c == ';') {
          end();
          break;
        } else if (identifierStart(c) && !identifierPart(previous())) {
          word();
        } else {
          out.append(c);
          i++;
        }
      }
      return new NamedStatement(
          out.toString().strip(), parameters, returning, errors, words, identifiers);
    }

    private char next() {
      return i + 1 < sql.length() ? sql.charAt(i + 1) : '\0';
    }

    private char previous() {
      return i > 0 ? sql.charAt(i - 1) : '\0';
    }

    private static boolean identifierStart(char c) {
      return c == '_' || Character.isLetter(c);
    }

    private static boolean identifierPart(char c) {
      return c == '_' || c == '$' || Character.isLetterOrDigit(c);
    }

    /** From an opening quote to its closing one; a doubled quote is part of the text. */
    private void quoted(char quote, boolean backslashEscapes, String what) {
      int start = i;
      out.append(quote);
      i++;
      while (i < sql.length()) {
        char c = sql.charAt(i);
        out.append(c);
        i++;
        if (backslashEscapes && c == '\\' && i < sql.length()) {
          out.append(sql.charAt(i));
          i++;
        } else if (c == quote) {
          if (i < sql.length() && sql.charAt(i) == quote) {
            out.append(quote);
            i++;
          } else {
            return;
          }
        }
      }
      errors.add(what + " opened at character " + (start + 1) + " is not closed");
    }

    private void lineComment() {
      int end = sql.indexOf('\n', i);
      end = end < 0 ? sql.length() : end;
      out.append(sql, i, end);
      i = end;
    }

    private void blockComment() {
      int end = sql.indexOf("*/", i + 2);
      if (end < 0) {
        errors.add("a comment opened at character " + (i + 1) + " is not closed");
        out.append(sql, i, sql.length());
        i = sql.length();
        return;
      }
      out.append(sql, i, end + 2);
      i = end + 2;
    }

    /** PostgreSQL's $tag$...$tag$ strings; $1 and $name placeholders are refused. */
    private void dollar() {
      int j = i + 1;
      while (j < sql.length() && identifierPart(sql.charAt(j)) && sql.charAt(j) != '$') {
        j++;
      }
      String tag = sql.substring(i, j);
      if (j < sql.length()
          && sql.charAt(j) == '$'
          && (tag.length() == 1 || !Character.isDigit(tag.charAt(1)))) {
        String delimiter = tag + "$";
        int end = sql.indexOf(delimiter, j + 1);
        if (end < 0) {
          errors.add("a $-quoted string opened at character " + (i + 1) + " is not closed");
          out.append(sql, i, sql.length());
          i = sql.length();
          return;
        }
        out.append(sql, i, end + delimiter.length());
        i = end + delimiter.length();
        return;
      }
      if (tag.length() > 1) {
        errors.add(
            "'"
                + tag
                + "' at character "
                + (i + 1)
                + " is not supported: name every parameter with a colon (:name)");
      }
      out.append(sql, i, j);
      i = j;
    }

    private void parameter() {
      int start = i + 1;
      int j = start;
      while (j < sql.length() && identifierPart(sql.charAt(j)) && sql.charAt(j) != '$') {
        j++;
      }
      parameters.add(sql.substring(start, j));
      out.append('?');
      i = j;
    }

    private void word() {
      int j = i;
      while (j < sql.length() && identifierPart(sql.charAt(j))) {
        j++;
      }
      String word = sql.substring(i, j);
      if (word.equalsIgnoreCase("returning")) {
        returning = true;
      }
      words.add(word.toUpperCase(java.util.Locale.ROOT));
      identifiers.add(word.toLowerCase(java.util.Locale.ROOT));
      out.append(word);
      i = j;
      if (word.equalsIgnoreCase("e") && i < sql.length() && sql.charAt(i) == '\'') {
        quoted('\'', true, "a string literal");
      }
    }

    /** A ';' ends the statement: only whitespace and comments may follow. */
    private void end() {
      int semicolon = i;
      i++;
      while (i < sql.length()) {
        char c = sql.charAt(i);
        if (Character.isWhitespace(c)) {
          i++;
        } else if (c == '-' && next() == '-') {
          int eol = sql.indexOf('\n', i);
          i = eol < 0 ? sql.length() : eol;
        } else if (c == '/' && next() == '*') {
          int close = sql.indexOf("*/", i + 2);
          i = close < 0 ? sql.length() : close + 2;
        } else {
          errors.add(
              "holds more than one statement (a ';' at character "
                  + (semicolon + 1)
                  + " is followed by more SQL); a SQL tool runs exactly one statement: write"
                  + " a Java tool for more");
          return;
        }
      }
    }
  }
}
