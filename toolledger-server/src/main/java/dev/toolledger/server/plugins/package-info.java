/**
 * Plugin discovery and registration. Not API: public for other ToolLedger modules, may change
 * without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.plugins;

import dev.toolledger.protocol.NotApi;
