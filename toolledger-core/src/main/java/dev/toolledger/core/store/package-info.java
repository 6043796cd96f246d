/**
 * The store SPI the engine writes through; toolledger-jdbc implements it. Not API: public for other
 * ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.store;

import dev.toolledger.protocol.NotApi;
