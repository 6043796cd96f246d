package dev.toolledger.declarative.mcp;

class SqliteMcpToolTest extends McpToolContractTest {
  @Override
  LedgerNodes openNodes() {
    return LedgerNodes.sqlite(dir.resolve("ledger.db"));
  }
}
