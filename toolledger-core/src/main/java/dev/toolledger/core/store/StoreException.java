package dev.toolledger.core.store;

import dev.toolledger.protocol.ToolLedgerException;

/** The ledger's database failed in a way that retrying will not fix. */
public class StoreException extends ToolLedgerException {
  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  public StoreException(String message) {
    super(message);
  }
}
