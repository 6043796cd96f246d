package dev.toolledger.examples.notes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.OutboxMessage;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import java.net.URI;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The reference tool {@code create-note}: inserts one note in the ledger's database, inside the
 * ledger's transaction, and answers {@code 201 {"id", "title", "body"}}. A note's id is counted per
 * tenant (see {@link NotesTables}): the first note of every tenant is 1.
 *
 * <p>With a per-tenant quota configured, a create beyond it is a definitive business error ({@code
 * 409}, type {@value #QUOTA_EXCEEDED}) after which nothing was written; it is recorded and replayed
 * like a success.
 */
public final class NotesTool implements TransactionalTool {
  public static final String NAME = "create-note";
  public static final String QUOTA_EXCEEDED =
      "https://toolledger.dev/problems/notes/quota-exceeded";

  /** The outbox topic of an attachment to process. */
  public static final String ATTACHMENT_TOPIC = "note.attachment";

  private final OptionalLong quotaPerTenant;
  private final Optional<URI> attachments;
  private final ToolDescriptor descriptor;

  private NotesTool(OptionalLong quotaPerTenant, Optional<URI> attachments) {
    this.quotaPerTenant = quotaPerTenant;
    this.attachments = attachments;
    this.descriptor = describe(attachments.isPresent());
  }

  private static ToolDescriptor describe(boolean withAttachments) {
    String attachment =
        withAttachments
            ? ",\"attachment\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":10000,"
                + "\"description\":\"A small text to be processed by the attachment service after"
                + " the note is created.\"}"
            : "";
    return ToolDescriptor.builder(NAME, "1")
        .description(
            "Creates a note with a title and an optional body. Safe to retry with the same"
                + " operation key: a retry returns the note created the first time.")
        .inputSchema(
            parse(
                "{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"title\"],"
                    + "\"properties\":{"
                    + "\"title\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":200,"
                    + "\"description\":\"The note's title, 1 to 200 characters.\"},"
                    + "\"body\":{\"type\":\"string\",\"default\":\"\","
                    + "\"description\":\"The note's text; empty when omitted.\"}"
                    + attachment
                    + "}}"))
        .build();
  }

  private static JsonNode parse(String json) {
    try {
      return new ObjectMapper().readTree(json);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the notes schema is not JSON", e);
    }
  }

  /** A notes tool without a quota. */
  public static NotesTool unlimited() {
    return new NotesTool(OptionalLong.empty(), Optional.empty());
  }

  /** A notes tool that refuses to create more than {@code quota} notes per tenant. */
  public static NotesTool withQuota(long quota) {
    if (quota < 0) {
      throw new IllegalArgumentException("quota must not be negative");
    }
    return new NotesTool(OptionalLong.of(quota), Optional.empty());
  }

  /**
   * The same tool, also accepting an {@code attachment}: the note commits together with an outbox
   * event ({@value #ATTACHMENT_TOPIC}) that a relay delivers to {@code endpoint} afterwards.
   */
  public NotesTool withAttachments(URI endpoint) {
    return new NotesTool(quotaPerTenant, Optional.of(endpoint));
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    String title = parameters.get("title").textValue();
    String body = parameters.get("body").textValue();
    if (quotaPerTenant.isPresent() && count(context) >= quotaPerTenant.getAsLong()) {
      ObjectNode problem = JsonNodeFactory.instance.objectNode();
      problem.put("type", QUOTA_EXCEEDED);
      problem.put("title", "Note quota exceeded");
      problem.put("status", 409);
      problem.put(
          "detail",
          "this tenant already has " + quotaPerTenant.getAsLong() + " notes; no note was created");
      return ToolResponse.of(409, problem);
    }
    long id = insert(context, title, body);
    ObjectNode note = JsonNodeFactory.instance.objectNode();
    note.put("id", id);
    note.put("title", title);
    note.put("body", body);
    JsonNode attachment = parameters.get("attachment");
    if (attachment != null && attachments.isPresent()) {
      ObjectNode event = JsonNodeFactory.instance.objectNode();
      event.put("tenant", context.tenant().value());
      event.put("noteId", id);
      event.put("text", attachment.textValue());
      String eventId =
          context
              .outbox()
              .enqueue(new OutboxMessage(ATTACHMENT_TOPIC, "note:" + id, attachments.get(), event));
      note.put("attachmentEvent", eventId);
    }
    return ToolResponse.of(201, note);
  }

  /**
   * Inserts the note under the tenant's next number and returns it. The number is counted per
   * tenant, so it tells a tenant nothing about the others; the tenant's row in {@code
   * notes_tenants} is written first, which on PostgreSQL holds a concurrent create of the same
   * tenant until this transaction ends, so the two never read the same highest number. (The unique
   * index on {@code (tenant, number)} would refuse a duplicate anyway.)
   */
  private static long insert(TransactionContext context, String title, String body)
      throws Exception {
    String tenant = context.tenant().value();
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement(
                "INSERT INTO notes_tenants (tenant, created) VALUES (?, 1) ON CONFLICT (tenant)"
                    + " DO UPDATE SET created = notes_tenants.created + 1")) {
      ps.setString(1, tenant);
      ps.executeUpdate();
    }
    try (PreparedStatement ps =
        context
            .connection()
            .prepareStatement(
                "INSERT INTO notes (tenant, number, title, body, created_at) VALUES (?,"
                    + " (SELECT COALESCE(MAX(number), 0) + 1 FROM notes WHERE tenant = ?), ?, ?, ?)"
                    + " RETURNING number")) {
      ps.setString(1, tenant);
      ps.setString(2, tenant);
      ps.setString(3, title);
      ps.setString(4, body);
      ps.setLong(5, context.now().toEpochMilli());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static long count(TransactionContext context) throws Exception {
    try (PreparedStatement ps =
        context.connection().prepareStatement("SELECT COUNT(*) FROM notes WHERE tenant = ?")) {
      ps.setString(1, context.tenant().value());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
