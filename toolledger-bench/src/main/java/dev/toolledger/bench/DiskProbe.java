package dev.toolledger.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * The disk's limit: how many synchronous writes per second the database's own directory takes. A
 * durable commit needs at least one, so commits per second cannot exceed this (without group
 * commit).
 */
final class DiskProbe {
  private DiskProbe() {}

  /** Rewrites one 4 KiB page and forces it to the device, for {@code duration}. */
  static double syncWritesPerSecond(Path directory, Duration duration) throws IOException {
    Path file = Files.createTempFile(directory, "toolledger-disk-probe", ".tmp");
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ByteBuffer page = ByteBuffer.allocate(4096);
      long start = System.nanoTime();
      long end = start + duration.toNanos();
      long writes = 0;
      long now;
      do {
        page.clear();
        page.putLong(0, writes);
        channel.write(page, 0);
        channel.force(false);
        writes++;
        now = System.nanoTime();
      } while (now < end);
      return writes * 1e9 / (now - start);
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
