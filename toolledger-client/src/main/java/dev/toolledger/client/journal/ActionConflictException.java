package dev.toolledger.client.journal;

/**
 * A step was recorded again with another tool or other parameters. That is not a retry of the
 * recorded action but a different action, and it needs its own step id (and so its own key).
 */
public final class ActionConflictException extends JournalException {
  private final JournalEntry recorded;

  public ActionConflictException(JournalEntry recorded) {
    super(
        "step "
            + recorded.stepId()
            + " of workflow "
            + recorded.workflowId()
            + " is already recorded as a call of "
            + recorded.action().tool()
            + " with other parameters; a different action needs a new step id");
    this.recorded = recorded;
  }

  /** What the journal holds for the step. */
  public JournalEntry recorded() {
    return recorded;
  }
}
