/**
 * The reference recipient of outbox events (note attachments), for the demo and tests. Not API:
 * public for other ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.attachments;

import dev.toolledger.protocol.NotApi;
