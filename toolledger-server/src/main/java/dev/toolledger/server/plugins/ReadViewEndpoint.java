package dev.toolledger.server.plugins;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.ReadContext;
import dev.toolledger.api.ReadView;
import dev.toolledger.api.SqlDialect;
import dev.toolledger.api.TenantId;
import dev.toolledger.core.store.StoreException;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.http.ReadEndpoint;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/** Serves a plugin's {@link ReadView} at {@code GET /v1/{path}} on its own pooled connection. */
final class ReadViewEndpoint implements ReadEndpoint {
  private static final Pattern PATH = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");

  /** Paths the ledger's own API uses: a view may not shadow them. */
  private static final java.util.Set<String> RESERVED =
      java.util.Set.of("tools", "operations", "tokens", "outbox", "ops", "health");

  private final ReadView view;
  private final DataSource dataSource;
  private final SqlDialect dialect;

  ReadViewEndpoint(ReadView view, DataSource dataSource, SqlDialect dialect) {
    String path = view.path();
    if (path == null || !PATH.matcher(path).matches()) {
      throw new IllegalArgumentException(
          "read view path '" + path + "' must be lowercase letters, digits or '-' (1 to 64)");
    }
    if (RESERVED.contains(path)) {
      throw new IllegalArgumentException(
          "read view path '" + path + "' is taken by the ledger's own API; choose another");
    }
    this.view = view;
    this.dataSource = dataSource;
    this.dialect = dialect;
  }

  @Override
  public String path() {
    return "/v1/" + view.path();
  }

  @Override
  public JsonNode read(Principal principal, Map<String, String> query) {
    TenantId tenant = principal.tenant();
    try (Connection connection = dataSource.getConnection()) {
      return view.read(new Context(tenant, connection, dialect), query);
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (SQLException e) {
      throw new StoreException(
          "read view " + view.path() + " failed (SQLState " + e.getSQLState() + ")", e);
    } catch (Exception e) {
      throw new StoreException("read view " + view.path() + " failed", e);
    }
  }

  private record Context(TenantId tenant, Connection connection, SqlDialect dialect)
      implements ReadContext {}
}
