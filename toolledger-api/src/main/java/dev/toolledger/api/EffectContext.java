package dev.toolledger.api;

/**
 * What an {@link ExternalTool} gets for one attempt of its effect.
 *
 * @param tenant the authenticated tenant
 * @param downstreamKey the key to send downstream (for example as its {@code Idempotency-Key}):
 *     derived from the tenant and the operation key, the same on every retry and takeover, and not
 *     the operation key itself
 * @param fence the fencing token of this attempt; it grows with every takeover
 */
public record EffectContext(TenantId tenant, String downstreamKey, long fence) {}
