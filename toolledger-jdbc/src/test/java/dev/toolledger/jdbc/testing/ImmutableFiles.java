package dev.toolledger.jdbc.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * A real storage fault for tests: the ledger's files made immutable with {@code chattr +i}, which
 * even root cannot write (plain permissions do not stop root). It needs root and a filesystem with
 * immutable files; elsewhere the test is skipped with a message, or fails when {@value
 * #REQUIRE_VARIABLE}{@code =true} ({@code .ci/run} sets it, so CI always runs these tests).
 */
public final class ImmutableFiles {
  /** Set to {@code true} to fail, rather than skip, where {@code chattr +i} is not available. */
  public static final String REQUIRE_VARIABLE = "TOOLLEDGER_REQUIRE_STORAGE_FAULTS";

  private ImmutableFiles() {}

  /** Makes every file immutable, or skips (or fails) the test, leaving none of them changed. */
  public static void makeImmutableOrSkip(Path... files) {
    List<Path> done = new ArrayList<>();
    for (Path file : files) {
      if (!chattr("+i", file)) {
        done.forEach(f -> chattr("-i", f));
        String why =
            "chattr +i is not available here (it needs root and a filesystem with immutable"
                + " files): cannot make "
                + file
                + " unwritable";
        if ("true".equalsIgnoreCase(System.getenv(REQUIRE_VARIABLE))) {
          throw new IllegalStateException(REQUIRE_VARIABLE + " is set: " + why);
        }
        Assumptions.abort(why);
      }
      done.add(file);
    }
  }

  /** Makes the files writable again. */
  public static void makeWritable(Path... files) {
    for (Path file : files) {
      chattr("-i", file);
    }
  }

  private static boolean chattr(String flag, Path file) {
    try {
      Process p =
          new ProcessBuilder("chattr", flag, file.toString()).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }
}
