package dev.toolledger.declarative;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * A tools file that cannot be served as written. The message names the file, the line and the
 * field, and says what to change; nothing is served until every error is fixed.
 *
 * <p>One exception may carry several errors (every error of a file is reported at once): {@link
 * #errors()} lists them, and the message has one per line.
 */
public final class DefinitionException extends Exception {
  private static final long serialVersionUID = 1L;

  private final List<String> errors;

  public DefinitionException(String message) {
    super(message);
    this.errors = List.of(message);
  }

  private DefinitionException(List<String> errors) {
    super(String.join("\n", errors));
    this.errors = List.copyOf(errors);
  }

  /**
   * One exception listing every error of {@code exceptions}, in order.
   *
   * @throws IllegalArgumentException when there is none
   */
  public static DefinitionException of(Collection<DefinitionException> exceptions) {
    List<String> all = new ArrayList<>();
    for (DefinitionException e : exceptions) {
      all.addAll(e.errors());
    }
    if (all.isEmpty()) {
      throw new IllegalArgumentException("no errors to report");
    }
    return new DefinitionException(all);
  }

  /** Throws one exception listing every error of {@code exceptions}; does nothing when empty. */
  public static void throwIfAny(Collection<DefinitionException> exceptions)
      throws DefinitionException {
    if (!exceptions.isEmpty()) {
      throw of(exceptions);
    }
  }

  /** Every error, each a {@code file:line: field: message} line. */
  public List<String> errors() {
    return errors;
  }
}
