package dev.toolledger.cli;

import picocli.CommandLine.Option;

/**
 * {@code --log-format}, for commands that log while they run. {@link Main} applies it before
 * anything logs; the option is declared here for help and for picocli to accept it.
 */
final class LoggingOptions {
  @Option(
      names = LogFormat.OPTION,
      paramLabel = "plain|json",
      description =
          "Log lines on stderr: plain text (default) or one JSON object per line. Default: $"
              + LogFormat.VARIABLE
              + " if set, else plain.")
  LogFormat format;
}
