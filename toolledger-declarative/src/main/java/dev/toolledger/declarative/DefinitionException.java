package dev.toolledger.declarative;

/**
 * A tools file that cannot be served as written. The message names the file, the line and the
 * field, and says what to change; nothing is served until every error is fixed.
 */
public final class DefinitionException extends Exception {
  private static final long serialVersionUID = 1L;

  public DefinitionException(String message) {
    super(message);
  }
}
