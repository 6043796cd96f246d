package dev.toolledger.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A Java example of a page of docs/ and the test source that runs it, compared line by line so that
 * the page shows what the test compiles and runs.
 */
public final class DocSnippet {
  private DocSnippet() {}

  /** The first {@code ```java} block after the line {@code heading} of the page. */
  public static String inPage(Path page, String heading) throws IOException {
    List<String> lines = Files.readAllLines(page);
    int at = lines.indexOf(heading);
    if (at < 0) {
      throw new AssertionError(page + " has no line " + heading);
    }
    int start = lines.subList(at, lines.size()).indexOf("```java") + at + 1;
    int end = lines.subList(start, lines.size()).indexOf("```") + start;
    return String.join("\n", lines.subList(start, end));
  }

  /** The lines of {@code source} between the lines {@code // marker:start} and {@code :end}. */
  public static String inSource(Path source, String marker) throws IOException {
    List<String> lines = Files.readAllLines(source).stream().map(String::stripTrailing).toList();
    int start = indexOfStripped(lines, "// " + marker + ":start") + 1;
    int end = indexOfStripped(lines, "// " + marker + ":end");
    List<String> snippet = lines.subList(start, end);
    int indent =
        snippet.stream()
            .filter(line -> !line.isBlank())
            .mapToInt(line -> line.length() - line.stripLeading().length())
            .min()
            .orElse(0);
    return String.join(
        "\n", snippet.stream().map(line -> line.isBlank() ? "" : line.substring(indent)).toList());
  }

  private static int indexOfStripped(List<String> lines, String wanted) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(wanted)) {
        return i;
      }
    }
    throw new AssertionError("no line " + wanted);
  }
}
