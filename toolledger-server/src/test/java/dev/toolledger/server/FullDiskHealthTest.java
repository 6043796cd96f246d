package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.testing.ImmutableFiles;
import dev.toolledger.server.Http.Reply;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real full disk under a running node: the ledger's SQLite file on a small tmpfs that a filler
 * file fills up. While writes answer {@code 503 ledger-unavailable}, {@code /health} answers 503
 * too (its probe, one small row rewritten in place, still committed on the full disk); once the
 * space is back, the next write succeeds and {@code /health} is ok again. Needs root (mount);
 * skipped elsewhere, or failed when {@value ImmutableFiles#REQUIRE_VARIABLE}{@code =true}.
 */
class FullDiskHealthTest {
  private static final String TYPE = "https://toolledger.dev/problems/";

  @TempDir Path dir;

  @Test
  void healthIsUnavailableWhileWritesFailOnAFullDiskAndOkOnceAWriteSucceeds() throws Exception {
    Path small = Files.createDirectories(dir.resolve("small"));
    mountOrSkip(small);
    try {
      Path filler = small.resolve("filler");
      try (ServerFixture fixture = ServerFixture.start(small)) {
        String acme = fixture.token("acme");
        assertThat(note(fixture, acme, "n-0").status()).isEqualTo(201);
        assertThat(Http.get(fixture.uri(), "/health", null).status()).isEqualTo(200);

        fill(filler);
        Reply refused = null;
        for (int i = 1; i <= 400 && refused == null; i++) {
          Reply reply = note(fixture, acme, "n-" + i);
          if (reply.status() == 503) {
            refused = reply;
          } else {
            assertThat(reply.status()).isEqualTo(201);
          }
        }
        assertThat(refused).as("a write met the full disk").isNotNull();
        assertThat(refused.problemType()).isEqualTo(TYPE + "ledger-unavailable");
        Reply health = Http.get(fixture.uri(), "/health", null);
        assertThat(health.status())
            .as("/health while writes fail: %s", health.body())
            .isEqualTo(503);
        assertThat(health.json().get("reason").asText()).startsWith("the ledger cannot write");

        Files.delete(filler);
        Reply again = note(fixture, acme, "n-again");
        assertThat(again.status()).isEqualTo(201);
        assertThat(Http.get(fixture.uri(), "/health", null).status()).isEqualTo(200);
      }
    } finally {
      run("umount", small.toString());
    }
  }

  private static Reply note(ServerFixture fixture, String token, String key) {
    return Http.createNote(
        fixture.uri(),
        token,
        key,
        "{\"title\":\"" + key + "\",\"body\":\"" + "x".repeat(16_000) + "\"}");
  }

  private static void fill(Path filler) {
    byte[] chunk = new byte[64 * 1024];
    try (OutputStream out = Files.newOutputStream(filler)) {
      while (true) {
        out.write(chunk);
      }
    } catch (IOException full) {
      // No space left: what the test wants.
    }
  }

  private static void mountOrSkip(Path where) {
    if (!run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", where.toString())) {
      String why = "cannot mount a small tmpfs here (it needs root): no full disk to test on";
      if ("true".equalsIgnoreCase(System.getenv(ImmutableFiles.REQUIRE_VARIABLE))) {
        throw new IllegalStateException(ImmutableFiles.REQUIRE_VARIABLE + " is set: " + why);
      }
      Assumptions.abort(why);
    }
  }

  private static boolean run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor() == 0;
    } catch (Exception e) {
      return false;
    }
  }
}
