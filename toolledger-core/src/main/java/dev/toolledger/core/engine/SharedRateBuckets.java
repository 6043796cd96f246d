package dev.toolledger.core.engine;

import dev.toolledger.api.TenantId;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Token buckets of new operations kept outside the node (in the ledger's database), one per tenant,
 * shared by every node that uses the same ones: together they admit the {@link RateLimit}, not once
 * per node. See {@link LedgerEngine.Builder#sharedRateBuckets}.
 *
 * <p>A bucket holds one period's worth and refills continuously, as the in-memory one does; time is
 * the engine's clock of the node that asks, so nodes should keep their clocks close (a clock
 * stepping back refills nothing).
 */
public interface SharedRateBuckets {

  /**
   * Takes one permit from {@code tenant}'s bucket under {@code limit}.
   *
   * @return empty when granted; otherwise how long until a permit is free
   * @throws dev.toolledger.core.store.StoreException when the database cannot be asked
   */
  Optional<Duration> take(TenantId tenant, RateLimit limit, Instant now);
}
