package dev.toolledger.server.answer;

/** Names a caller sent (a tool, a method), made safe to echo in an answer or a log line. */
public final class Printable {
  private Printable() {}

  /** At most 64 visible ASCII characters; anything else becomes '?'. */
  public static String name(String name) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < name.length() && sb.length() < 64; i++) {
      char c = name.charAt(i);
      sb.append(c >= 0x21 && c <= 0x7E ? c : '?');
    }
    return sb.toString();
  }
}
