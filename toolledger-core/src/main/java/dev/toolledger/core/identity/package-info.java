/**
 * Keyed hashes that name operation keys in logs. Not API: public for other ToolLedger modules, may
 * change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.identity;

import dev.toolledger.protocol.NotApi;
