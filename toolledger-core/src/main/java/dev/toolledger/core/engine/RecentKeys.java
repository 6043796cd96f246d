package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.identity.OperationKey;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The keys this node recorded or replayed lately, as a hint of where a request is likely a retry.
 * When the store's claim decides replays in the transaction, the engine skips its read of the key
 * before the transaction; for a key in this set it reads first anyway, so that a retry of a recent
 * operation costs one read instead of a transaction. Correctness never depends on it: a key missing
 * here (evicted, recorded by another node) goes to the transaction, whose claim decides; a key
 * wrongly found here only costs that read.
 *
 * <p>Direct-mapped and fixed in size: a slot holds a 64-bit mix of the tenant's and the key's hash
 * codes, and a newer key takes the slot of an older one. No locks, no allocation per call.
 */
final class RecentKeys {
  private static final int SLOTS = 1 << 14; // 128 KiB

  private final AtomicLongArray slots = new AtomicLongArray(SLOTS);

  void add(TenantId tenant, OperationKey key) {
    long h = hash(tenant, key);
    slots.lazySet(slot(h), h);
  }

  boolean contains(TenantId tenant, OperationKey key) {
    long h = hash(tenant, key);
    return slots.get(slot(h)) == h;
  }

  private static int slot(long h) {
    return (int) (h ^ (h >>> 32)) & (SLOTS - 1);
  }

  private static long hash(TenantId tenant, OperationKey key) {
    // String hash codes are cached by the strings; mixed (SplitMix64's finalizer) so that the slot
    // depends on every bit. Zero marks an empty slot and is never stored.
    long h = ((long) tenant.value().hashCode() << 32) ^ (key.value().hashCode() & 0xffffffffL);
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    h = h ^ (h >>> 31);
    return h == 0 ? 1 : h;
  }
}
