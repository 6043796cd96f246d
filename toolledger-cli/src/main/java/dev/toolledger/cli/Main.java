package dev.toolledger.cli;

import picocli.CommandLine;

/** Entry point of the {@code toolledger} command. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line and returns its exit code (for tests). */
  public static int run(String... args) {
    try {
      // Before anything logs: logback.xml picks its appender once, when logging starts.
      LogFormat.choose(args, System.getenv()).apply();
    } catch (IllegalArgumentException e) {
      System.err.println("toolledger: " + e.getMessage());
      return 2;
    }
    return new CommandLine(new ToolLedgerCommand())
        .setCaseInsensitiveEnumValuesAllowed(true)
        .setExecutionExceptionHandler(
            (e, commandLine, parseResult) -> {
              commandLine.getErr().println("toolledger: " + e.getMessage());
              return 1;
            })
        .execute(args);
  }
}
