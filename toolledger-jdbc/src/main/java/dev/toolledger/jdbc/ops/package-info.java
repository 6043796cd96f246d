/**
 * Operators' read queries over the ledger. Not API: public for other ToolLedger modules, may change
 * without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.jdbc.ops;

import dev.toolledger.protocol.NotApi;
