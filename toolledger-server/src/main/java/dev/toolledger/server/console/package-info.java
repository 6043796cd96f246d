/**
 * The operations console. Not API: public for other ToolLedger modules, may change without notice
 * ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.console;

import dev.toolledger.protocol.NotApi;
