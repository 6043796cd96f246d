/**
 * The engine that decides who executes an operation, and its background passes. Not API: public for
 * other ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.engine;

import dev.toolledger.protocol.NotApi;
