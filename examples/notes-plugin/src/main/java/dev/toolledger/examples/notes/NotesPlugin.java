package dev.toolledger.examples.notes;

import dev.toolledger.api.PluginContext;
import dev.toolledger.api.ToolPlugin;
import java.net.URI;
import java.util.Optional;
import java.util.Set;

/**
 * The notes plugin, {@code notes}: the tool {@code create-note}, its table and {@code GET
 * /v1/notes}. Found by {@link java.util.ServiceLoader} on the server's classpath.
 *
 * <p>Options: {@code --tool-option notes.quota=N} (a per-tenant limit; creates beyond it are a
 * recorded business error) and {@code --tool-option notes.attachments=URL} (accept an {@code
 * attachment} and hand it to that service through the outbox).
 */
public final class NotesPlugin implements ToolPlugin {
  private final Optional<NotesTool> configured;

  /** For {@link java.util.ServiceLoader}: configured from options. */
  public NotesPlugin() {
    this.configured = Optional.empty();
  }

  private NotesPlugin(NotesTool tool) {
    this.configured = Optional.of(tool);
  }

  /** A plugin serving this exact tool (options are then not read): for embedding and tests. */
  public static NotesPlugin serving(NotesTool tool) {
    return new NotesPlugin(tool);
  }

  @Override
  public String name() {
    return "notes";
  }

  @Override
  public Set<String> optionNames() {
    return Set.of("quota", "attachments");
  }

  @Override
  public void register(PluginContext context) {
    NotesTool tool = configured.orElseGet(() -> fromOptions(context));
    context.tables(NotesTables.schema()).tool(tool).readView(new NotesView());
  }

  private static NotesTool fromOptions(PluginContext context) {
    NotesTool tool =
        context
            .option("quota")
            .map(NotesPlugin::quota)
            .map(NotesTool::withQuota)
            .orElseGet(NotesTool::unlimited);
    Optional<String> attachments = context.option("attachments");
    return attachments.isPresent() ? tool.withAttachments(URI.create(attachments.get())) : tool;
  }

  private static long quota(String raw) {
    try {
      return Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("notes.quota must be a whole number, not '" + raw + "'");
    }
  }
}
