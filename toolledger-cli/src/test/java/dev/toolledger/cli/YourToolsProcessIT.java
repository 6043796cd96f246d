package dev.toolledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged {@code toolledger.jar} serving a team's own tools the two ways that need no change
 * to ToolLedger: a plugin jar dropped in {@code --plugins-dir}, and a SQL tool declared in {@code
 * --tools-file}. A tools file with an error stops the start with the file, line and field.
 */
class YourToolsProcessIT {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @TempDir Path dir;

  @Test
  void aPluginJarInThePluginsDirectoryServesItsToolWithReplay() throws Exception {
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    Files.copy(ordersPluginJar(), plugins.resolve("orders-plugin.jar"));
    Path db = dir.resolve("ledger.db");
    Process server = serve(db, "--plugins-dir", plugins.toString());
    try {
      URI base = baseUri(server);
      String token = token(db);
      String order = "{\"sku\":\"BOOK-1\",\"quantity\":2}";
      HttpResponse<String> first = call(base, "create-order", token, "order-1", order);
      HttpResponse<String> retry = call(base, "create-order", token, "order-1", order);
      assertThat(first.statusCode()).isEqualTo(201);
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
      assertThat(retry.body()).isEqualTo(first.body());
      // The bundled notes plugin is still served beside it.
      assertThat(call(base, "create-note", token, "note-1", "{\"title\":\"a\"}").statusCode())
          .isEqualTo(201);
    } finally {
      stop(server);
    }
  }

  @Test
  void aToolsFileThatDeclaresItsTablesServesItsSqlToolOnAFreshLedgerAndAgainAfterARestart()
      throws Exception {
    Path db = dir.resolve("ledger.db");
    Path tools = Path.of("..", "examples", "tools", "orders.yaml");
    String order = "{\"sku\":\"BOOK-1\",\"qty\":2}";
    String firstBody;
    Process server = serve(db, "--tools-file", tools.toString());
    try {
      URI base = baseUri(server);
      String token = token(db);
      HttpResponse<String> first = call(base, "create-order", token, "o-1", order);
      HttpResponse<String> retry = call(base, "create-order", token, "o-1", order);
      assertThat(first.statusCode()).as(first.body()).isEqualTo(201);
      assertThat(first.body()).contains("\"sku\":\"BOOK-1\"");
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
      assertThat(retry.body()).isEqualTo(first.body());
      firstBody = first.body();
    } finally {
      stop(server);
    }
    // The migrations are recorded: a second start applies nothing again and the key replays.
    Process again = serve(db, "--tools-file", tools.toString());
    try {
      URI base = baseUri(again);
      HttpResponse<String> replay = call(base, "create-order", token(db), "o-1", order);
      assertThat(replay.body()).isEqualTo(firstBody);
      assertThat(call(base, "create-order", token(db), "o-2", order).statusCode()).isEqualTo(201);
    } finally {
      stop(again);
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement st = c.createStatement();
        java.sql.ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM orders")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(2);
    }
  }

  @Test
  void aSqlToolFromAToolsFileIsServedWithReplayAndConflict() throws Exception {
    Path db = dir.resolve("ledger.db");
    // The team's own table, in the ledger's database, created by the team.
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, tenant TEXT NOT NULL,"
              + " title TEXT NOT NULL, body TEXT NOT NULL, created_at BIGINT NOT NULL,"
              + " number BIGINT, UNIQUE (tenant, number))");
    }
    Path tools = Path.of("..", "examples", "tools", "notes.yaml");
    Process server = serve(db, "--tools-file", tools.toString(), "--without-plugin", "notes");
    try {
      URI base = baseUri(server);
      String token = token(db);
      HttpResponse<String> first = call(base, "create-note", token, "k-1", "{\"title\":\"a\"}");
      HttpResponse<String> retry = call(base, "create-note", token, "k-1", "{\"title\":\"a\"}");
      HttpResponse<String> changed = call(base, "create-note", token, "k-1", "{\"title\":\"b\"}");
      assertThat(first.statusCode()).isEqualTo(201);
      assertThat(retry.body()).isEqualTo(first.body());
      assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
      assertThat(changed.statusCode()).isEqualTo(422);
    } finally {
      stop(server);
    }
  }

  @Test
  void aBrokenToolsFileStopsTheStartNamingFileLineAndField() throws Exception {
    Path tools = dir.resolve("tools.yaml");
    Files.writeString(
        tools,
        "tools:\n"
            + "  - kind: sql\n"
            + "    name: create-order\n"
            + "    version: \"1\"\n"
            + "    parameters: {type: object}\n"
            + "    statment: INSERT INTO orders (tenant) VALUES (:tenant)\n");
    Process server = serve(dir.resolve("ledger.db"), "--tools-file", tools.toString());
    assertThat(server.waitFor(60, TimeUnit.SECONDS)).as("the start stops").isTrue();
    assertThat(server.exitValue()).isNotZero();
    String errors = Files.readString(dir.resolve("server.err"));
    assertThat(errors).contains(tools + ":6").contains("statment");
    assertThat(dir.resolve("ledger.db")).as("nothing changed").doesNotExist();
  }

  private Process serve(Path db, String... more) throws Exception {
    return PackagedJar.serve(db, dir.resolve("server.err"), more);
  }

  private static URI baseUri(Process server) throws Exception {
    return PackagedJar.servingUri(server);
  }

  private static String token(Path db) throws Exception {
    return PackagedJar.token(db, "acme");
  }

  private static HttpResponse<String> call(
      URI base, String tool, String token, String key, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(base.resolve("/v1/tools/" + tool))
            .header("Authorization", "Bearer " + token)
            .header("Idempotency-Key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void stop(Process server) throws Exception {
    PackagedJar.stop(server);
  }

  /**
   * The orders example as a jar: the packaged one when Maven has built it, else one made here from
   * its compiled classes (as when the test runs from an IDE).
   */
  private Path ordersPluginJar() throws Exception {
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("orders-plugin") && !entry.contains("toolledger-example-orders")) {
        continue;
      }
      Path path = Path.of(entry);
      if (Files.isRegularFile(path)) {
        return path;
      }
      Path jar = dir.resolve("orders-from-classes.jar");
      try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
          Stream<Path> files = Files.walk(path)) {
        for (Path file : files.filter(Files::isRegularFile).toList()) {
          out.putNextEntry(new JarEntry(path.relativize(file).toString().replace('\\', '/')));
          Files.copy(file, out);
          out.closeEntry();
        }
      }
      return jar;
    }
    throw new IllegalStateException("toolledger-example-orders is not on the test classpath");
  }
}
