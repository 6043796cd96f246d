package dev.toolledger.client.journal;

import java.util.Objects;

/**
 * What {@link ActionJournal#record(Action)} did.
 *
 * @param entry the action's entry
 * @param isNew true when this call minted the key (the action cannot have been sent yet); false
 *     when the step was already recorded (it may have been sent, by this process or one that died)
 */
public record Recorded(JournalEntry entry, boolean isNew) {
  public Recorded {
    Objects.requireNonNull(entry, "entry");
  }
}
