package dev.toolledger.core.engine;

import dev.toolledger.protocol.ToolLedgerException;

/**
 * The tool threw instead of returning an outcome. Its transaction was rolled back and nothing was
 * recorded, so the caller may retry with the same key.
 */
public final class ToolExecutionException extends ToolLedgerException {
  private final String tool;

  public ToolExecutionException(String tool, Throwable cause) {
    super(
        "tool " + tool + " failed; its transaction was rolled back and nothing was recorded",
        cause);
    this.tool = tool;
  }

  public String tool() {
    return tool;
  }
}
