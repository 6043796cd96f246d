package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The keys this node recorded or replayed lately, as a hint of where a request is likely a retry.
 * When the store's claim decides replays in the transaction, the engine skips its read of the key
 * before the transaction; for a key in this set it reads first anyway, so that a retry of a recent
 * operation costs one read instead of a transaction. Correctness never depends on it: a key missing
 * here (evicted, recorded by another node) goes to the transaction, whose claim decides; a key
 * wrongly found here only costs that read.
 *
 * <p>Fixed in size and 8-way set-associative: an entry is a 64-bit mix of the tenant's and the
 * key's hash codes, its set is chosen by those bits, and a new key takes an empty way of its set or
 * else a way at random. Ways fill in order and are never emptied, so a key present is found before
 * any empty way. The table it replaces was direct-mapped (one slot per key, same size): in a
 * working set of 1,000 keys about 30 pairs shared a slot and evicted each other on every use, so
 * 4-8% of the retries of a set that fits many times over paid a transaction instead of a read (the
 * benchmark's replays on PostgreSQL spent 12% of their time there). Four ways would still lose a
 * key of one such working set in about 30 (five of its keys in one set of the table); with eight,
 * 2,000 keys are kept whole 998 times in 1,000 (Poisson). Adding a key already present writes
 * nothing, so replays of the same keys do not bounce a cache line between cores. No locks, no
 * allocation per call; a lost race only costs a transaction.
 */
final class RecentKeys {
  private static final int WAYS = 8;
  private static final int SETS = 1 << 11; // 2,048 sets of 8 ways of 8 bytes: 128 KiB

  private final AtomicLongArray slots = new AtomicLongArray(SETS * WAYS);

  void add(TenantId tenant, OperationKey key) {
    long h = hash(tenant, key);
    int base = base(h);
    for (int way = 0; way < WAYS; way++) {
      long held = slots.get(base + way);
      if (held == h) {
        return;
      }
      if (held == 0 && slots.compareAndSet(base + way, 0, h)) {
        return;
      }
    }
    slots.lazySet(base + ThreadLocalRandom.current().nextInt(WAYS), h);
  }

  boolean contains(TenantId tenant, OperationKey key) {
    long h = hash(tenant, key);
    int base = base(h);
    for (int way = 0; way < WAYS; way++) {
      if (slots.get(base + way) == h) {
        return true;
      }
    }
    return false;
  }

  private static int base(long h) {
    return ((int) (h ^ (h >>> 32)) & (SETS - 1)) * WAYS;
  }

  private static long hash(TenantId tenant, OperationKey key) {
    // String hash codes are cached by the strings; mixed (SplitMix64's finalizer) so that the set
    // depends on every bit. Zero marks an empty way and is never stored.
    long h = ((long) tenant.value().hashCode() << 32) ^ (key.value().hashCode() & 0xffffffffL);
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    h = h ^ (h >>> 31);
    return h == 0 ? 1 : h;
  }
}
