package com.example.notes;

import java.time.Instant;
import java.util.UUID;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/**
 * A Spring service with a {@code @Transactional} method, as an application's tool may call one:
 * inside a tool it joins the ledger's transaction instead of committing on its own.
 */
public class NoteWriter {
  private final JdbcTemplate jdbc;

  public NoteWriter(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @Transactional
  public void insert(String tenant, String title, Instant at) {
    jdbc.update(
        "INSERT INTO app_notes (id, tenant, title, body, created_at) VALUES (?, ?, ?, '', ?)",
        UUID.randomUUID().toString(),
        tenant,
        title,
        at.toEpochMilli());
  }

  /** Inserts, then fails inside the transactional method: Spring marks the transaction. */
  @Transactional
  public void insertThenFail(String tenant, String title, Instant at) {
    insert(tenant, title, at);
    throw new IllegalStateException("failing inside @Transactional, on purpose");
  }
}
