/**
 * What the HTTP and MCP transports of the client share. Not API: public for other ToolLedger
 * modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.client.internal;

import dev.toolledger.protocol.NotApi;
