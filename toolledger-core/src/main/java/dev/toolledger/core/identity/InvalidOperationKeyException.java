package dev.toolledger.core.identity;

import dev.toolledger.core.ToolLedgerException;

/** An operation key that breaks the key rules; the message says which rule. */
public final class InvalidOperationKeyException extends ToolLedgerException {
  public InvalidOperationKeyException(String reason) {
    super(reason);
  }
}
