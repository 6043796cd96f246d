package dev.toolledger.jdbc.ops;

import dev.toolledger.api.TenantId;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.OperationState;
import java.time.Instant;
import java.util.Optional;

/**
 * Which operations {@link OperationCatalog#list} returns: every given condition must hold. Build
 * with {@link #builder()}; nothing set lists the newest operations of every tenant.
 */
public final class OperationFilter {
  /** Default and largest number of rows: 50 and 1000. */
  public static final int DEFAULT_LIMIT = 50;

  public static final int MAX_LIMIT = 1000;

  private final Optional<OperationState> state;
  private final Optional<TenantId> tenant;
  private final Optional<String> tool;
  private final Optional<OperationKey> key;
  private final Optional<Instant> createdBefore;
  private final boolean oldestFirst;
  private final int limit;

  private OperationFilter(Builder b) {
    this.state = Optional.ofNullable(b.state);
    this.tenant = Optional.ofNullable(b.tenant);
    this.tool = Optional.ofNullable(b.tool);
    this.key = Optional.ofNullable(b.key);
    this.createdBefore = Optional.ofNullable(b.createdBefore);
    this.oldestFirst = b.oldestFirst;
    this.limit = b.limit;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Optional<OperationState> state() {
    return state;
  }

  public Optional<TenantId> tenant() {
    return tenant;
  }

  public Optional<String> tool() {
    return tool;
  }

  public Optional<OperationKey> key() {
    return key;
  }

  public Optional<Instant> createdBefore() {
    return createdBefore;
  }

  public boolean oldestFirst() {
    return oldestFirst;
  }

  public int limit() {
    return limit;
  }

  /** Builder; every condition is optional. */
  public static final class Builder {
    private OperationState state;
    private TenantId tenant;
    private String tool;
    private OperationKey key;
    private Instant createdBefore;
    private boolean oldestFirst;
    private int limit = DEFAULT_LIMIT;

    private Builder() {}

    /** Only operations in this state. Default: any state. */
    public Builder state(OperationState state) {
      this.state = state;
      return this;
    }

    /** Only this tenant's operations. Default: every tenant. */
    public Builder tenant(TenantId tenant) {
      this.tenant = tenant;
      return this;
    }

    /** Only operations of this tool. Default: any tool. */
    public Builder tool(String tool) {
      this.tool = tool;
      return this;
    }

    /**
     * Only operations with this key (in every tenant unless {@link #tenant} is set; without a
     * tenant the search reads the whole table). Default: any key.
     */
    public Builder key(OperationKey key) {
      this.key = key;
      return this;
    }

    /** Only operations created before this instant. Default: no bound. */
    public Builder createdBefore(Instant createdBefore) {
      this.createdBefore = createdBefore;
      return this;
    }

    /** The oldest first instead of the newest first. Default: newest first. */
    public Builder oldestFirst(boolean oldestFirst) {
      this.oldestFirst = oldestFirst;
      return this;
    }

    /** At most this many rows, 1 to {@value OperationFilter#MAX_LIMIT}. Default 50. */
    public Builder limit(int limit) {
      this.limit = limit;
      return this;
    }

    public OperationFilter build() {
      if (limit < 1 || limit > MAX_LIMIT) {
        throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT + ", not " + limit);
      }
      if (tool != null && tool.isEmpty()) {
        throw new IllegalArgumentException("tool must not be empty");
      }
      return new OperationFilter(this);
    }
  }
}
