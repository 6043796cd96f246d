package dev.toolledger.jdbc;

/**
 * SQLite's {@code synchronous} level in WAL mode, i.e. when a commit reaches the disk.
 *
 * <ul>
 *   <li>{@link #FULL} (default): the WAL is synced at every commit. An acknowledged operation
 *       survives a process crash and a power loss.
 *   <li>{@link #NORMAL}: the WAL is synced only at checkpoints. An acknowledged operation survives
 *       a process crash, but a power loss or kernel crash may lose the last commits; a caller that
 *       was told "executed" could then retry, find no record and execute again.
 * </ul>
 */
public enum Synchronous {
  FULL,
  NORMAL
}
