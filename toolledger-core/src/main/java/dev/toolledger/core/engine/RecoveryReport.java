package dev.toolledger.core.engine;

/** What one recovery pass did, for logs and tests. */
public final class RecoveryReport {
  int examined;
  int completed;
  int notExecuted;
  int unknown;
  int stillInProgress;
  int released;
  int lost;

  void count(ExternalPath.Settled settled) {
    switch (settled) {
      case COMPLETED -> completed++;
      case NOT_EXECUTED -> notExecuted++;
      case UNKNOWN -> unknown++;
      case STILL_IN_PROGRESS -> stillInProgress++;
      case RELEASED -> released++;
      case CLAIM_LOST -> lost++;
    }
  }

  /** Expired claims looked at. */
  public int examined() {
    return examined;
  }

  public int completed() {
    return completed;
  }

  public int notExecuted() {
    return notExecuted;
  }

  public int unknown() {
    return unknown;
  }

  public int stillInProgress() {
    return stillInProgress;
  }

  public int released() {
    return released;
  }

  /** Claims another node took over first, or that could not be written. */
  public int lost() {
    return lost;
  }

  @Override
  public String toString() {
    return "RecoveryReport[examined="
        + examined
        + ", completed="
        + completed
        + ", notExecuted="
        + notExecuted
        + ", unknown="
        + unknown
        + ", stillInProgress="
        + stillInProgress
        + ", released="
        + released
        + ", lost="
        + lost
        + "]";
  }
}
