/**
 * The transactional outbox: its store SPI and the relay that delivers it. Not API: public for other
 * ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.outbox;

import dev.toolledger.protocol.NotApi;
