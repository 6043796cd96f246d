/**
 * The {@code kind: mcp} declared tool: a write tool of another MCP server (a program over stdio or
 * a Streamable HTTP endpoint) made safe to retry through the ledger (operation key per action,
 * recorded outcome, replay, conflict on other parameters, a lost answer settled by a lookup tool of
 * the same server, else {@code UNKNOWN}; never called twice for one key). The front door is {@link
 * dev.toolledger.declarative.mcp.McpToolKind}; the format is in {@code
 * docs/declarative-mcp-tools.md}.
 */
package dev.toolledger.declarative.mcp;
