/**
 * The ledger's records of operations: intents, states over time, tombstones. Not API: public for
 * other ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.operation;

import dev.toolledger.protocol.NotApi;
