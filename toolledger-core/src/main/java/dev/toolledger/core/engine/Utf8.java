package dev.toolledger.core.engine;

/** The UTF-8 size of a response body, checked against the stored-response limit. */
final class Utf8 {
  private Utf8() {}

  /** UTF-8 length of a string, without encoding it. */
  static long length(String text) {
    long bytes = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x80) {
        bytes += 1;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < text.length()
          && Character.isLowSurrogate(text.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    }
    return bytes;
  }
}
