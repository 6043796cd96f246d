/**
 * The MCP endpoint. Not API: public for other ToolLedger modules, may change without notice ({@link
 * NotApi}).
 */
@NotApi
package dev.toolledger.server.mcp;

import dev.toolledger.protocol.NotApi;
