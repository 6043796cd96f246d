package dev.toolledger.guard;

import dev.toolledger.client.retry.RetryPolicy;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The guard as a host launches it, for tests that run it in a JVM of its own: {@code GuardMain
 * ENDPOINT JOURNAL [DEADLINE_MS]}, the token from {@code TOOLLEDGER_TOKEN}. The CLI's {@code
 * toolledger guard} does the same with picocli options.
 */
public final class GuardMain {
  private GuardMain() {}

  public static void main(String[] args) throws Exception {
    PrintStream protocol = System.out;
    System.setOut(System.err);
    GuardConfig.Builder config =
        GuardConfig.builder()
            .endpoint(URI.create(args[0]))
            .journal(Path.of(args[1]))
            .token(System.getenv("TOOLLEDGER_TOKEN"));
    if (args.length > 2) {
      Duration deadline = Duration.ofMillis(Long.parseLong(args[2]));
      config
          .retryPolicy(
              RetryPolicy.builder()
                  .deadline(deadline)
                  .backoff(Duration.ofMillis(20), Duration.ofMillis(100))
                  .build())
          .attemptTimeout(deadline);
    }
    try (Guard guard = Guard.start(config.build(), System.in, protocol)) {
      guard.awaitEndOfInput();
    }
  }
}
