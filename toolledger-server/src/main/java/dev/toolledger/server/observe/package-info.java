/**
 * Metrics, correlation ids and log safety. Not API: public for other ToolLedger modules, may change
 * without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.observe;

import dev.toolledger.protocol.NotApi;
