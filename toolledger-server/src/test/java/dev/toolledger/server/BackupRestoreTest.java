package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.jdbc.SqliteBackup;
import dev.toolledger.server.Http.Reply;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An online backup of a SQLite ledger taken while clients write, restored into a new server: every
 * key acknowledged before the backup began replays its outcome byte for byte, and nothing executes
 * again.
 */
class BackupRestoreTest {
  private static final int WRITERS = 4;

  @TempDir Path dir;

  record Acknowledged(String body, int status) {}

  @Test
  void restoredLedgerReplaysEveryKeyAcknowledgedBeforeTheBackupWithoutNewEffects()
      throws Exception {
    Path live = dir.resolve("live.db");
    Path backup = dir.resolve("backup.db");
    Path restored = dir.resolve("restored.db");
    Map<String, Acknowledged> acknowledged = new ConcurrentHashMap<>();
    Map<String, Acknowledged> acknowledgedBeforeBackup;
    String token;
    try (Cluster node = Cluster.sqlite(live, UnaryOperator.identity())) {
      token = node.token("acme");
      AtomicBoolean stop = new AtomicBoolean();
      CyclicBarrier start = new CyclicBarrier(WRITERS);
      CountDownLatch enough = new CountDownLatch(40);
      ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
      List<Future<?>> running = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        int writer = w;
        running.add(
            writers.submit(
                () -> {
                  start.await();
                  for (int i = 0; !stop.get() && i < 10_000; i++) {
                    String key = "w" + writer + "-" + i;
                    Reply reply =
                        Http.createNote(
                            node.node(0), token, key, "{\"title\":\"note " + key + "\"}");
                    if (reply.status() == 201) {
                      acknowledged.put(key, new Acknowledged(reply.body(), reply.status()));
                      enough.countDown();
                    }
                  }
                  return null;
                }));
      }
      assertThat(enough.await(60, TimeUnit.SECONDS)).as("40 notes acknowledged").isTrue();
      // Every key in this copy was acknowledged, so committed, before the backup's snapshot.
      acknowledgedBeforeBackup = Map.copyOf(acknowledged);
      SqliteBackup.Report report = SqliteBackup.backup(live, backup);
      int atBackup = acknowledged.size();
      // Writes go on after the backup, so the backup was taken in the middle of them.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (acknowledged.size() < atBackup + 20 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      stop.set(true);
      for (Future<?> writer : running) {
        writer.get(60, TimeUnit.SECONDS);
      }
      writers.shutdown();
      assertThat(report.operations()).isGreaterThanOrEqualTo(acknowledgedBeforeBackup.size());
      assertThat(node.count("SELECT COUNT(*) FROM tl_operations"))
          .isGreaterThan(report.operations());
    }

    SqliteBackup.restore(backup, restored);
    try (Cluster node = Cluster.sqlite(restored, UnaryOperator.identity())) {
      long notesBefore = node.count("SELECT COUNT(*) FROM notes");
      long operations = node.count("SELECT COUNT(*) FROM tl_operations");
      // One snapshot: every operation in the backup has its note, and no note lacks its record.
      assertThat(notesBefore).isEqualTo(operations);

      for (Map.Entry<String, Acknowledged> entry : acknowledgedBeforeBackup.entrySet()) {
        String key = entry.getKey();
        Reply replay =
            Http.createNote(node.node(0), token, key, "{\"title\":\"note " + key + "\"}");
        assertThat(replay.status()).as(key).isEqualTo(entry.getValue().status());
        assertThat(replay.body()).as(key).isEqualTo(entry.getValue().body());
        assertThat(replay.header("Idempotent-Replayed")).as(key).isEqualTo("true");
      }

      assertThat(node.count("SELECT COUNT(*) FROM notes")).isEqualTo(notesBefore);
      assertThat(node.count("SELECT COUNT(*) FROM tl_operations")).isEqualTo(operations);
    }
  }

  @Test
  void backupRefusesToOverwriteAFileAndRestoreRefusesAnExistingLedger() throws Exception {
    Path live = dir.resolve("live.db");
    try (Cluster node = Cluster.sqlite(live, UnaryOperator.identity())) {
      Http.createNote(node.node(0), node.token("acme"), "op-1", "{\"title\":\"a\"}");
      SqliteBackup.backup(live, dir.resolve("backup.db"));

      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> SqliteBackup.backup(live, dir.resolve("backup.db")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("refusing to overwrite");
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> SqliteBackup.restore(dir.resolve("backup.db"), live))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("refusing to overwrite");
    }
  }
}
