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
