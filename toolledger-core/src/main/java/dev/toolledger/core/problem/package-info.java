/**
 * Plain words for failures in answers and histories. Not API: public for other ToolLedger modules,
 * may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.problem;

import dev.toolledger.protocol.NotApi;
