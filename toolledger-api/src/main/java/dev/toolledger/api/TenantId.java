package dev.toolledger.api;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The authenticated owner of operations. Every operation key is scoped by a tenant: the same key
 * string from two tenants names two unrelated operations.
 *
 * <p>A tenant id is only ever taken from authentication (a bearer token's grant), never from a
 * request body or a header the caller chooses.
 */
public record TenantId(String value) {
  public static final int MAX_LENGTH = 64;
  private static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  public TenantId {
    Objects.requireNonNull(value, "tenant");
    if (!VALID.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "a tenant name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or"
              + " digit");
    }
  }

  public static TenantId of(String value) {
    return new TenantId(value);
  }

  @Override
  public String toString() {
    return value;
  }
}
