package dev.toolledger.protocol;

/**
 * Root of every exception ToolLedger throws on purpose. Messages carry what is needed to act on the
 * failure (the tool, a short hash of the key, the option at fault) and never secrets or parameter
 * values.
 */
public class ToolLedgerException extends RuntimeException {
  public ToolLedgerException(String message) {
    super(message);
  }

  public ToolLedgerException(String message, Throwable cause) {
    super(message, cause);
  }
}
