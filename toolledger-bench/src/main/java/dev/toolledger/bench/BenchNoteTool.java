package dev.toolledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import dev.toolledger.api.TransactionContext;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.examples.notes.NotesTool;

/**
 * The harness's {@code create-note}: the reference tool's name, version and schema, whose effect is
 * exactly {@code bare-insert}'s statement (one {@code INSERT INTO notes ... RETURNING id}).
 *
 * <p>Why not the reference tool itself: since it counts note ids per tenant (commit 12ed29f) it
 * runs two statements, the first of which locks the tenant's row in {@code notes_tenants} until
 * commit, so every create of the harness's one tenant waits for the previous one on PostgreSQL.
 * That is the tool's cost, not the ledger's; {@code keyed-floor} and {@code bare-insert} insert the
 * note with one statement, and {@code keyed-create / keyed-floor} is meant to be what the engine
 * adds on top of the same effect. The figures (docs/bench/bench.txt) were measured before
 * 12ed29f, when the reference tool ran this very statement.
 */
final class BenchNoteTool implements TransactionalTool {
  private final ToolDescriptor descriptor = NotesTool.unlimited().descriptor();

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public ToolResponse execute(TransactionContext context, JsonNode parameters) throws Exception {
    String title = parameters.get("title").textValue();
    String body = parameters.get("body").textValue();
    long id =
        FloorScenarios.insertNote(
            context.connection(),
            context.tenant().value(),
            title,
            body,
            context.now().toEpochMilli());
    ObjectNode note = JsonNodeFactory.instance.objectNode();
    note.put("id", id);
    note.put("title", title);
    note.put("body", body);
    return ToolResponse.of(201, note);
  }
}
