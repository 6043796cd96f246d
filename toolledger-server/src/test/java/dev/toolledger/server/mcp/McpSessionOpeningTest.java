package dev.toolledger.server.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.api.TenantId;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTables;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.jdbc.JdbcLedgerStore;
import dev.toolledger.jdbc.SqliteOptions;
import dev.toolledger.server.HttpMount;
import dev.toolledger.server.ToolLedgerApp;
import dev.toolledger.server.plugins.PluginRegistration;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A session is open from the moment its id can reach the client. A client sends its next message
 * (normally {@code notifications/initialized}) as soon as the initialize answer arrives, while the
 * server's thread that wrote that answer may not have run another instruction yet (a loaded machine
 * deschedules it for as long as it likes).
 *
 * <p>The test makes that window as long as it needs: the node is mounted in a Jetty of the test's
 * own, with a filter between the gate and the transport that, once the initialize answer is on the
 * wire, holds the thread that wrote it until the client has sent its next message on another
 * connection and got its answer.
 */
class McpSessionOpeningTest {
  @TempDir Path dir;

  @Test
  void aSessionTakesItsNextMessageWhileTheThreadThatAnsweredInitializeIsStillBusy()
      throws Exception {
    CountDownLatch nextMessageAnswered = new CountDownLatch(1);
    // After the gate (it runs first, and registers sessions), before the transport (it answers).
    Filter holdTheInitializingThread =
        (request, response, chain) -> {
          boolean initialize =
              ((HttpServletRequest) request).getHeader(McpGate.SESSION_HEADER) == null;
          chain.doFilter(request, response);
          if (initialize && ((HttpServletResponse) response).getStatus() == 200) {
            response.flushBuffer();
            try {
              nextMessageAnswered.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
        };
    try (JdbcLedgerStore store =
            JdbcLedgerStore.sqlite(
                SqliteOptions.builder(dir.resolve("ledger.db"))
                    .migrations(PluginRegistration.migrations(NotesTables.schema()))
                    .build());
        ToolLedgerApp app =
            ToolLedgerApp.builder(store)
                .plugin(NotesPlugin.serving(NotesTool.unlimited()))
                .startMounted()) {
      Server jetty = serve(app.httpMount(), holdTheInitializingThread);
      try {
        URI endpoint =
            URI.create(
                "http://127.0.0.1:"
                    + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort()
                    + McpConventions.PATH);
        String token = app.tokens().issue(TenantId.of("acme"), "test").token();

        // Its own client, so that the next message does not wait for this connection.
        HttpResponse<String> initialized =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(
                    HttpRequest.newBuilder(endpoint)
                        .header("Authorization", "Bearer " + token)
                        .header("Content-Type", "application/json")
                        .header("Accept", "application/json, text/event-stream")
                        .POST(HttpRequest.BodyPublishers.ofString(RawMcp.INITIALIZE))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(initialized.statusCode()).isEqualTo(200);
        String session = initialized.headers().firstValue(McpGate.SESSION_HEADER).orElseThrow();

        HttpResponse<String> next;
        try {
          next =
              RawMcp.send(
                  endpoint,
                  token,
                  session,
                  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
                      .getBytes(StandardCharsets.UTF_8),
                  Map.of());
        } finally {
          nextMessageAnswered.countDown();
        }

        assertThat(next.statusCode()).as(next.body()).isEqualTo(202);
      } finally {
        jetty.stop();
      }
    }
  }

  /** The node's filters and servlets, with {@code afterGate} right after the MCP gate. */
  private static Server serve(HttpMount mount, Filter afterGate) throws Exception {
    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    for (HttpMount.FilterEntry filter : mount.filters()) {
      FilterHolder holder = new FilterHolder(filter.filter());
      holder.setName(filter.name());
      context.addFilter(holder, filter.path(), EnumSet.of(DispatcherType.REQUEST));
      if (filter.name().equals("mcp-gate")) {
        context.addFilter(
            new FilterHolder(afterGate), McpConventions.PATH, EnumSet.of(DispatcherType.REQUEST));
      }
    }
    for (HttpMount.ServletEntry servlet : mount.servlets()) {
      context.addServlet(new ServletHolder(servlet.name(), servlet.servlet()), servlet.path());
    }
    jetty.setHandler(context);
    jetty.start();
    return jetty;
  }
}
