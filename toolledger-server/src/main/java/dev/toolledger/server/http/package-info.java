/**
 * The HTTP API's servlet, filters and documents. Not API: public for other ToolLedger modules, may
 * change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.http;

import dev.toolledger.protocol.NotApi;
