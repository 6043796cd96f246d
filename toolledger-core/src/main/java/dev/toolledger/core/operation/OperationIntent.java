package dev.toolledger.core.operation;

import dev.toolledger.core.fingerprint.Fingerprint;
import java.util.Objects;

/** What an operation asked for: the tool, its contract version and the parameters' fingerprint. */
public record OperationIntent(String tool, String toolVersion, Fingerprint fingerprint) {
  public OperationIntent {
    Objects.requireNonNull(tool, "tool");
    Objects.requireNonNull(toolVersion, "toolVersion");
    Objects.requireNonNull(fingerprint, "fingerprint");
  }
}
