package dev.toolledger.cli;

import dev.toolledger.server.auth.OperatorAuthenticator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Where the operator token comes from: {@value #VARIABLE} or a file, never the command line (where
 * process listings would show it). Without one, nobody is an operator: the console refuses everyone
 * and {@code /metrics} serves loopback clients only.
 */
final class OperatorOptions {
  /** The environment variable that holds the operator token. */
  static final String VARIABLE = "TOOLLEDGER_OPERATOR_TOKEN";

  @Option(
      names = "--operator-token-file",
      paramLabel = "FILE",
      description =
          "A file whose content is the operator token (at least 16 characters) for /console and"
              + " /metrics. Default: $"
              + VARIABLE
              + " if set, else no operator.")
  Path file;

  /**
   * The operators this node accepts.
   *
   * @throws IllegalArgumentException when the token is given twice, or is too short
   */
  OperatorAuthenticator operators(Map<String, String> environment) {
    Optional<String> fromEnvironment =
        Optional.ofNullable(environment.get(VARIABLE)).filter(v -> !v.isBlank());
    if (file != null && fromEnvironment.isPresent()) {
      throw new IllegalArgumentException(
          "the operator token is given both in $"
              + VARIABLE
              + " and --operator-token-file; give it in one place");
    }
    if (file != null) {
      try {
        return OperatorAuthenticator.sharedSecret(
            Files.readString(file, StandardCharsets.UTF_8).strip());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read --operator-token-file " + file, e);
      }
    }
    return fromEnvironment
        .map(OperatorAuthenticator::sharedSecret)
        .orElse(OperatorAuthenticator.none());
  }
}
