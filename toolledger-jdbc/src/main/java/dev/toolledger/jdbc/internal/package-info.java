/**
 * Connection and statement plumbing of the JDBC stores. Not API: public for other ToolLedger
 * modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.jdbc.internal;

import dev.toolledger.protocol.NotApi;
