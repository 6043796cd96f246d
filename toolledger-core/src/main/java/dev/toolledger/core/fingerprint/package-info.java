/**
 * The fingerprint of an intent: SHA-256 over its canonical JSON. Not API: public for other
 * ToolLedger modules, may change without notice ({@link NotApi}).
 */
@NotApi
package dev.toolledger.core.fingerprint;

import dev.toolledger.protocol.NotApi;
