package dev.toolledger.springai;

import dev.toolledger.protocol.ToolLedgerException;

/** The server's tool list could not be read; no callbacks were made. */
public final class ToolDiscoveryException extends ToolLedgerException {
  public ToolDiscoveryException(String message) {
    super(message);
  }

  public ToolDiscoveryException(String message, Throwable cause) {
    super(message, cause);
  }
}
