/**
 * The {@code kind: http} declared tool: one REST write endpoint made safe to retry through the
 * ledger (operation key per action, recorded outcome, replay, conflict on other parameters, a lost
 * answer settled by lookup or idempotent retry, else {@code UNKNOWN}). The front door is {@link
 * dev.toolledger.declarative.http.HttpToolKind}.
 */
package dev.toolledger.declarative.http;
