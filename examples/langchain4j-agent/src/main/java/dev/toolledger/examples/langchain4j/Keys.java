package dev.toolledger.examples.langchain4j;

/** Shows operation keys shortened: enough to see that two are the same, not the whole key. */
final class Keys {
  private Keys() {}

  static String shorten(String key) {
    return key.length() <= 8 ? key : key.substring(0, 8) + "...";
  }
}
