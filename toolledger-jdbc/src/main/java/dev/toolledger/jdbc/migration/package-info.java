/**
 * Numbered schema migrations of the ledger and of plugins' tables. Not API: public for other
 * ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.jdbc.migration;

import dev.toolledger.protocol.NotApi;
