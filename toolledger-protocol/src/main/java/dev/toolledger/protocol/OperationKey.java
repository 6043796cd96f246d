package dev.toolledger.protocol;

import java.util.Objects;

/**
 * The stable identity of one business action, chosen by the execution layer (never by the model)
 * and kept across every retry of that action.
 *
 * <p>A key is 1 to {@value #MAX_LENGTH} visible ASCII characters ({@code 0x21} to {@code 0x7E}): no
 * spaces, no control characters, nothing outside ASCII. That is the character set of the IETF
 * {@code Idempotency-Key} header's string value without its quotes, and what a random UUID, a ULID
 * or a base64url token already use. A key is not a secret and grants no access: every lookup is
 * also scoped by the caller's tenant, which the ledger takes from the authenticated credential.
 */
public record OperationKey(String value) {
  public static final int MAX_LENGTH = 255;

  public OperationKey {
    Objects.requireNonNull(value, "key");
    if (value.isEmpty()) {
      throw new InvalidOperationKeyException(
          "the operation key is empty; send 1 to 255 characters");
    }
    if (value.length() > MAX_LENGTH) {
      throw new InvalidOperationKeyException(
          "the operation key has " + value.length() + " characters; at most 255 are allowed");
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        throw new InvalidOperationKeyException(
            "the operation key has a character that is not visible ASCII at position "
                + (i + 1)
                + "; use 0x21 to 0x7E only (for example a UUID)");
      }
    }
  }

  public static OperationKey of(String value) {
    return new OperationKey(value);
  }

  /**
   * Reads the value of an {@code Idempotency-Key} header. The IETF draft sends it as a Structured
   * Field string ({@code "op-1"}); many clients send it bare ({@code op-1}). Both name the same
   * key. A value that starts with a double quote is read as a Structured Field string: it must end
   * with one, and inside it only {@code \"} and {@code \\} are escapes.
   */
  public static OperationKey fromHeader(String header) {
    Objects.requireNonNull(header, "header");
    String raw = header.strip();
    if (raw.startsWith("\"")) {
      return new OperationKey(unquote(raw));
    }
    return new OperationKey(raw);
  }

  private static String unquote(String quoted) {
    StringBuilder out = new StringBuilder(quoted.length());
    int i = 1;
    while (i < quoted.length()) {
      char c = quoted.charAt(i);
      if (c == '\\') {
        if (i + 1 >= quoted.length()) {
          break;
        }
        char next = quoted.charAt(i + 1);
        if (next != '"' && next != '\\') {
          throw new InvalidOperationKeyException(
              "the quoted operation key has an invalid escape; only \\\" and \\\\ are allowed");
        }
        out.append(next);
        i += 2;
      } else if (c == '"') {
        if (i != quoted.length() - 1) {
          throw new InvalidOperationKeyException(
              "the quoted operation key has characters after its closing quote");
        }
        return out.toString();
      } else {
        out.append(c);
        i++;
      }
    }
    throw new InvalidOperationKeyException("the quoted operation key has no closing quote");
  }

  /**
   * Deliberately neither the key nor a hash of it, so that a stray log statement cannot leak it: a
   * plain hash of a guessable key confirms the guess. The ledger's logs name keys by a keyed hash
   * (its {@code KeyHasher}).
   */
  @Override
  public String toString() {
    return "OperationKey[withheld]";
  }
}
