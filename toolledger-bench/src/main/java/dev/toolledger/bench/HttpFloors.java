package dev.toolledger.bench;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.PreEncodedHttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Callback;

/**
 * What Jetty itself costs per request on the node's own connector and threads, as {@code
 * keyed-floor} is for the database: two handlers put in front of the node's servlet context
 * (through {@code ToolLedgerApp.Builder.httpFront}) that read the request's body and answer a
 * replay's answer, canned: the same status, headers and body bytes as {@code http-replay}'s.
 *
 * <ul>
 *   <li>{@value #SERVLET} is a trivial servlet in a servlet context of its own (no filters):
 *       Jetty's connector, HTTP parsing and servlet layer, with nothing of ToolLedger's.
 *   <li>{@value #CORE} is a Jetty core {@link Handler}: the connector and HTTP parsing without the
 *       servlet layer.
 *   <li>{@value #REPLAY} is the servlet floor that also runs the in-process {@code replay} of the
 *       request's {@code Idempotency-Key} before it answers: Jetty's cost for a handler that waits
 *       on the store as the node's does. Against the servlet floor it shows what blocking costs the
 *       connector's threads: on PostgreSQL the replay waits on a socket, and each wait ends in a
 *       wake-up that a handler answering at once never pays. {@code http-floor-replay - replay} is
 *       therefore the floor of {@code http-replay - replay}, the HTTP stack's share.
 * </ul>
 *
 * The node's own requests reach it after the two floors' contexts have declined them (a check of
 * the path's prefix each), so {@code http-replay} pays that too.
 */
final class HttpFloors implements UnaryOperator<Handler> {
  /** The servlet floor's context path. */
  static final String SERVLET = "/fs";

  /** The core floor's context path. */
  static final String CORE = "/fc";

  /** The replaying servlet floor's context path. */
  static final String REPLAY = "/fr";

  /** The replay's answer, set once the replay keys exist ({@link #answer}). */
  private volatile Canned canned;

  /** The in-process replay of a key, set with the answer. */
  private volatile Consumer<String> replay;

  /** A replay's answer as the node sends it: body and the headers ToolLedger sets. */
  // Never compared or hashed: it carries the bytes to write, so identity equality is harmless.
  @SuppressWarnings("ArrayRecordComponent")
  record Canned(int status, String contentType, String requestId, byte[] body) {}

  /**
   * Sets what the floors answer and how the replaying floor replays a key ({@code replay} must
   * throw when the key is not replayed).
   */
  void answer(Canned canned, Consumer<String> replay) {
    this.replay = replay;
    this.canned = canned;
  }

  @Override
  public Handler apply(Handler node) {
    ServletContextHandler servlets = new ServletContextHandler(SERVLET);
    servlets.addServlet(new ServletHolder("floor", new FloorServlet(false)), "/*");
    ServletContextHandler replaying = new ServletContextHandler(REPLAY);
    replaying.addServlet(new ServletHolder("floor", new FloorServlet(true)), "/*");
    ContextHandler core = new ContextHandler(new CoreFloor(), CORE);
    // Each context declines a request outside its path, so the node gets every other request.
    return new Handler.Sequence(servlets, replaying, core, node);
  }

  private Canned canned() {
    Canned answer = canned;
    if (answer == null) {
      throw new IllegalStateException("the floor's answer is not set yet");
    }
    return answer;
  }

  /**
   * A servlet doing what {@code ApiServlet} must do for a replay, minus ToolLedger's work; with
   * {@code replays}, plus the in-process replay (the engine's work, none of the HTTP API's).
   */
  private final class FloorServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private final boolean replays;

    FloorServlet(boolean replays) {
      this.replays = replays;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      Canned answer = canned();
      request.getInputStream().readAllBytes();
      if (replays) {
        replay.accept(request.getHeader("Idempotency-Key"));
      }
      response.setHeader("X-Request-Id", answer.requestId());
      response.setHeader("Idempotent-Replayed", "true");
      response.setStatus(answer.status());
      response.setContentType(answer.contentType());
      response.setHeader("Cache-Control", "no-store");
      response.setContentLength(answer.body().length);
      response.getOutputStream().write(answer.body());
    }
  }

  /** The same answer from a core handler: no servlet request, response or stream objects. */
  private final class CoreFloor extends Handler.Abstract {
    private static final HttpField REPLAYED =
        new PreEncodedHttpField("Idempotent-Replayed", "true");
    private static final HttpField NO_STORE =
        new PreEncodedHttpField(HttpHeader.CACHE_CONTROL, "no-store");

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      Canned answer = canned();
      Content.Source.consumeAll(request);
      response.setStatus(answer.status());
      response.getHeaders().put("X-Request-Id", answer.requestId());
      response.getHeaders().add(REPLAYED);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, answer.contentType());
      response.getHeaders().add(NO_STORE);
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, answer.body().length);
      response.write(true, ByteBuffer.wrap(answer.body()), callback);
      return true;
    }
  }
}
