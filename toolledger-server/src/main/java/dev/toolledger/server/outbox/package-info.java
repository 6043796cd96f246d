/**
 * Outbox delivery of the node. Not API: public for other ToolLedger modules, may change without
 * notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.outbox;

import dev.toolledger.protocol.NotApi;
