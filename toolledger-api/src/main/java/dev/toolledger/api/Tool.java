package dev.toolledger.api;

/**
 * A write tool whose calls ToolLedger makes safe to retry. The kind of tool decides where its
 * effect happens and therefore what the engine can promise about it.
 */
public sealed interface Tool permits TransactionalTool, ExternalTool {
  ToolDescriptor descriptor();

  default String name() {
    return descriptor().name();
  }
}
