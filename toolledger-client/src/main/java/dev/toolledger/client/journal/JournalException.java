package dev.toolledger.client.journal;

import dev.toolledger.protocol.ToolLedgerException;

/** The journal could not be read or written; the message says what and why, never parameters. */
public class JournalException extends ToolLedgerException {
  public JournalException(String message) {
    super(message);
  }

  public JournalException(String message, Throwable cause) {
    super(message, cause);
  }
}
