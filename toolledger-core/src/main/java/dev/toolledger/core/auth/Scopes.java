package dev.toolledger.core.auth;

import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What a bearer token may do. Scopes are strings, stored with the token and checked in memory on
 * every request (never only when an operation is first executed):
 *
 * <ul>
 *   <li>{@code tools:*} calls every tool; {@code tools:NAME} calls the tool NAME. Calling includes
 *       replaying: a token without the tool's scope cannot replay a key of that tool either.
 *   <li>{@code read} looks operations up ({@code GET /v1/operations/{key}}, MCP {@code
 *       get-operation}) and reads the tenant's data endpoints. A token with {@code read} alone is
 *       read-only.
 *   <li>{@code resolve} resolves an {@code UNKNOWN} operation explicitly. Giving up on a key (an
 *       inquiry, which may fence it) needs {@code read} and at least one {@code tools:} scope
 *       instead: it reads the operation and writes a fence, as its caller could by calling.
 *   <li>{@code operator} belongs to operator tokens only, alone: they act for no tenant, are
 *       refused by the tenant API and MCP, and are meant for an operator console or CLI that reads
 *       operations across tenants and resolves them.
 * </ul>
 *
 * <p>Every scope is within one tenant except {@code operator}.
 *
 * @param values the scope strings, at least one
 */
public record Scopes(Set<String> values) {
  public static final String ALL_TOOLS = "tools:*";
  public static final String TOOL_PREFIX = "tools:";
  public static final String READ = "read";
  public static final String RESOLVE = "resolve";
  public static final String OPERATOR = "operator";

  private static final Pattern VALID =
      Pattern.compile("tools:\\*|tools:[a-z0-9][a-z0-9._-]{0,63}|read|resolve|operator");

  public Scopes {
    Objects.requireNonNull(values, "values");
    if (values.isEmpty()) {
      throw new IllegalArgumentException("a token needs at least one scope");
    }
    for (String scope : values) {
      if (scope == null || !VALID.matcher(scope).matches()) {
        throw new IllegalArgumentException(
            "unknown scope '"
                + scope
                + "'; scopes are tools:*, tools:TOOL-NAME, read, resolve and operator");
      }
    }
    if (values.contains(OPERATOR) && values.size() > 1) {
      throw new IllegalArgumentException("the operator scope stands alone");
    }
    values = Set.copyOf(values);
  }

  public static Scopes of(Collection<String> values) {
    return new Scopes(Set.copyOf(values));
  }

  public static Scopes of(String... values) {
    return of(Arrays.asList(values));
  }

  /** Reads the stored form: scopes separated by spaces. */
  public static Scopes parse(String text) {
    return of(Arrays.stream(text.strip().split("\\s+")).filter(s -> !s.isEmpty()).toList());
  }

  /** What a tenant token gets unless told otherwise: every tool, and lookups. */
  public static Scopes tenantDefault() {
    return of(ALL_TOOLS, READ);
  }

  /**
   * Everything a tenant token can do: every tool, lookups and explicit resolution. Tokens issued
   * before scopes existed have these, so that an upgrade takes nothing away.
   */
  public static Scopes tenantAll() {
    return of(ALL_TOOLS, READ, RESOLVE);
  }

  public static Scopes operator() {
    return of(OPERATOR);
  }

  public boolean isOperator() {
    return values.contains(OPERATOR);
  }

  /** Whether the token may call (and so replay) the tool {@code name}. */
  public boolean allowsTool(String name) {
    return values.contains(ALL_TOOLS) || values.contains(TOOL_PREFIX + name);
  }

  public boolean allowsAnyTool() {
    return values.stream().anyMatch(s -> s.startsWith(TOOL_PREFIX));
  }

  public boolean allowsRead() {
    return values.contains(READ);
  }

  public boolean allowsResolve() {
    return values.contains(RESOLVE);
  }

  /** The stored form: sorted, separated by spaces. */
  @Override
  public String toString() {
    return String.join(" ", new TreeSet<>(values));
  }
}
