/**
 * Validation of a tool's parameters against its JSON Schema. Not API: public for other ToolLedger
 * modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.schema;

import dev.toolledger.protocol.NotApi;
