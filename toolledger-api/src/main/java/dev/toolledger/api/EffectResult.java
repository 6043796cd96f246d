package dev.toolledger.api;

import java.util.Objects;

/** What an {@link ExternalTool#perform} call reports when it knows what happened. */
public sealed interface EffectResult {

  /** The effect happened, or was refused with a definitive business error; record this outcome. */
  record Done(ToolResponse response) implements EffectResult {
    public Done {
      Objects.requireNonNull(response, "response");
    }
  }

  /**
   * It is certain that nothing happened (the downstream refused before acting, or could not be
   * reached at all). The claim is released; nothing is recorded, so the same key may be retried.
   * When recovery performed again after taking the claim over, an earlier executor may still be
   * running, so the claim is not released: the key is recorded as {@code NOT_EXECUTED} instead.
   */
  record NotDone(String reason) implements EffectResult {
    public NotDone {
      Objects.requireNonNull(reason, "reason");
    }
  }

  static EffectResult done(ToolResponse response) {
    return new Done(response);
  }

  static EffectResult notDone(String reason) {
    return new NotDone(reason);
  }
}
