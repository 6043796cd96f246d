package dev.toolledger.protocol;

/** An operation key that breaks the key rules; the message says which rule. */
public final class InvalidOperationKeyException extends ToolLedgerException {
  public InvalidOperationKeyException(String reason) {
    super(reason);
  }
}
