/**
 * The JSON view of an operation record and its problems, for HTTP and MCP lookups. Not API: public
 * for other ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.operations;

import dev.toolledger.protocol.NotApi;
