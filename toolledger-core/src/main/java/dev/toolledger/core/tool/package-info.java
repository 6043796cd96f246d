/**
 * The registry of served tools. Not API: public for other ToolLedger modules, may change without
 * notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.tool;

import dev.toolledger.protocol.NotApi;
