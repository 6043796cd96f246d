package dev.toolledger.jdbc;

import dev.toolledger.api.TenantId;
import dev.toolledger.core.auth.Scopes;
import dev.toolledger.core.auth.TokenRecord;
import dev.toolledger.core.auth.TokenStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The API tokens in a ledger's database ({@code tl_tokens}), written in the store's write
 * transactions; reached through {@link JdbcLedgerStore}, which is the {@link TokenStore}.
 */
final class JdbcTokenStore implements TokenStore {
  private static final String COLUMNS =
      "id, secret_hash, tenant, label, created_at, revoked_at, scopes";

  private final DataSource dataSource;
  private final StorageFaults faults;
  private final WriteTransactions writes;

  JdbcTokenStore(StoreConnections connections, StorageFaults faults, WriteTransactions writes) {
    this.dataSource = connections.dataSource();
    this.faults = faults;
    this.writes = writes;
  }

  @Override
  public void insert(TokenRecord token) {
    writes.inTransaction(
        tx -> {
          try (PreparedStatement ps =
              tx.connection()
                  .prepareStatement(
                      "INSERT INTO tl_tokens (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, token.id());
            ps.setString(2, token.secretHash());
            ps.setString(3, token.tenant().map(TenantId::value).orElse(LedgerSchema.NO_TENANT));
            ps.setString(4, token.label());
            ps.setLong(5, token.createdAt().toEpochMilli());
            if (token.revokedAt().isPresent()) {
              ps.setLong(6, token.revokedAt().get().toEpochMilli());
            } else {
              ps.setNull(6, Types.BIGINT);
            }
            ps.setString(7, token.scopes().toString());
            ps.executeUpdate();
          }
          return null;
        });
  }

  @Override
  public Optional<TokenRecord> findBySecretHash(String secretHash) {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT " + COLUMNS + " FROM tl_tokens WHERE secret_hash = ?")) {
      ps.setString(1, secretHash);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(read(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw faults.translate(e, "reading a token");
    }
  }

  @Override
  public List<TokenRecord> list() {
    try (Connection connection = dataSource.getConnection();
        PreparedStatement ps =
            connection.prepareStatement(
                "SELECT " + COLUMNS + " FROM tl_tokens ORDER BY created_at, id");
        ResultSet rs = ps.executeQuery()) {
      List<TokenRecord> tokens = new ArrayList<>();
      while (rs.next()) {
        tokens.add(read(rs));
      }
      return tokens;
    } catch (SQLException e) {
      throw faults.translate(e, "listing tokens");
    }
  }

  @Override
  public boolean revoke(String id, Instant at) {
    return writes.inTransaction(
        tx -> {
          try (PreparedStatement ps =
              tx.connection()
                  .prepareStatement(
                      "UPDATE tl_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL")) {
            ps.setLong(1, at.toEpochMilli());
            ps.setString(2, id);
            return ps.executeUpdate() == 1;
          }
        });
  }

  private static TokenRecord read(ResultSet rs) throws SQLException {
    String stored = rs.getString("scopes");
    Scopes scopes = Scopes.parse(stored == null ? LedgerSchema.TOKENS_BEFORE_SCOPES : stored);
    return new TokenRecord(
        rs.getString("id"),
        rs.getString("secret_hash"),
        scopes.isOperator() ? Optional.empty() : Optional.of(TenantId.of(rs.getString("tenant"))),
        scopes,
        rs.getString("label"),
        Instant.ofEpochMilli(rs.getLong("created_at")),
        OperationRows.instant(rs, "revoked_at"));
  }
}
