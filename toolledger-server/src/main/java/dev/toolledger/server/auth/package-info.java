/**
 * Bearer tokens and operator authentication of the node. Not API: public for other ToolLedger
 * modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.server.auth;

import dev.toolledger.protocol.NotApi;
