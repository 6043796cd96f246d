package dev.toolledger.cli;

import dev.toolledger.client.retry.RetryPolicy;
import dev.toolledger.guard.Guard;
import dev.toolledger.guard.GuardConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code toolledger guard}: the agent-side execution layer for MCP hosts that send no operation
 * key. A stdio MCP server that a host launches in place of the node's URL; stdout carries the
 * protocol and nothing else. See docs/guard.md.
 */
@Command(
    name = "guard",
    mixinStandardHelpOptions = true,
    description = {
      "Serve a ToolLedger node's tools over MCP on stdin/stdout for a host that sends no"
          + " operation key (Claude Desktop, Cursor, VS Code, agents on the MCP SDKs). Each call is"
          + " one action: its key is minted and journaled before it is sent, retries keep it, and"
          + " an identical call whose answer did not arrive is the same action. Ends when the host"
          + " closes stdin.",
      "The token comes from the TOOLLEDGER_TOKEN environment variable or --token-file, never from"
          + " an argument."
    })
final class GuardCommand implements Callable<Integer> {
  static final String TOKEN_VARIABLE = "TOOLLEDGER_TOKEN";

  @Mixin LoggingOptions logging;

  @Option(
      names = "--node",
      required = true,
      paramLabel = "URL",
      description =
          "The node's MCP endpoint, e.g. http://127.0.0.1:8080/mcp (a URL without a path gets"
              + " /mcp).")
  URI node;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "Read the node's bearer token from FILE (its first line). Default: the "
              + TOKEN_VARIABLE
              + " environment variable.")
  Path tokenFile;

  @Option(
      names = "--journal",
      paramLabel = "FILE",
      description =
          "The guard's journal, a SQLite file created if missing (default:"
              + " ~/.toolledger/guard-journal.db). Keep it across restarts: it holds the keys of"
              + " unanswered actions.")
  Path journal;

  @Option(
      names = "--session",
      paramLabel = "NAME",
      defaultValue = GuardConfig.DEFAULT_SESSION,
      description =
          "The journal's workflow id for this host: identical calls are matched within one"
              + " session only (default: ${DEFAULT-VALUE}).")
  String session;

  @Option(
      names = "--claim-window",
      paramLabel = "DURATION",
      defaultValue = "24h",
      converter = DurationConverter.class,
      description =
          "How long an action without a definitive answer stays the same action for an identical"
              + " call; at most 24h (default: ${DEFAULT-VALUE}).")
  Duration claimWindow;

  @Option(
      names = "--deadline",
      paramLabel = "DURATION",
      defaultValue = "30s",
      converter = DurationConverter.class,
      description =
          "Longest time one call is retried before it is answered as unknown; keep it below the"
              + " host's request timeout (default: ${DEFAULT-VALUE}).")
  Duration deadline;

  @Option(
      names = "--max-attempts",
      paramLabel = "N",
      defaultValue = "5",
      description = "Attempts per call, the first included (default: ${DEFAULT-VALUE}).")
  int maxAttempts;

  @Option(
      names = "--attempt-timeout",
      paramLabel = "DURATION",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Longest time one attempt may take (default: ${DEFAULT-VALUE}).")
  Duration attemptTimeout;

  @Override
  public Integer call() throws Exception {
    // The protocol owns stdout; anything else that prints goes to stderr instead of corrupting it.
    PrintStream protocol = System.out;
    System.setOut(System.err);
    GuardConfig config =
        GuardConfig.builder()
            .endpoint(node)
            .token(token())
            .journal(journalFile())
            .session(session)
            .claimWindow(claimWindow)
            .retryPolicy(
                RetryPolicy.defaults().toBuilder()
                    .deadline(deadline)
                    .maxAttempts(maxAttempts)
                    .build())
            .attemptTimeout(attemptTimeout)
            .build();
    Guard guard = Guard.start(config, System.in, protocol);
    AtomicBoolean stopped = new AtomicBoolean();
    Runnable stop =
        () -> {
          if (stopped.compareAndSet(false, true)) {
            guard.close();
          }
        };
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "toolledger-guard-shutdown"));
    guard.awaitEndOfInput();
    stop.run();
    return 0;
  }

  private String token() throws IOException {
    if (tokenFile != null) {
      String first =
          Files.readAllLines(tokenFile, StandardCharsets.UTF_8).stream().findFirst().orElse("");
      if (first.isBlank()) {
        throw new IllegalArgumentException("--token-file " + tokenFile + " holds no token");
      }
      return first.strip();
    }
    String token = System.getenv(TOKEN_VARIABLE);
    if (token == null || token.isBlank()) {
      throw new IllegalArgumentException(
          "no token: set " + TOKEN_VARIABLE + " in the host's \"env\", or pass --token-file");
    }
    return token;
  }

  private Path journalFile() throws IOException {
    if (journal != null) {
      return journal;
    }
    Path dir = Path.of(System.getProperty("user.home"), ".toolledger");
    Files.createDirectories(dir);
    return dir.resolve("guard-journal.db");
  }
}
