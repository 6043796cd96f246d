/**
 * Token records, scopes and the token store SPI of the ledger. Not API: public for other ToolLedger
 * modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.auth;

import dev.toolledger.protocol.NotApi;
