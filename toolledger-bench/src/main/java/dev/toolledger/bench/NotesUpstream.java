package dev.toolledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A small notes service in the harness's process, the upstream of the {@code kind: http} tool that
 * the declarative scenarios call: {@code POST /notes} with a JSON object that has a {@code title}
 * and an {@code Idempotency-Key} header creates one note per key, kept in memory, and answers
 * {@code 201} with it; the same key again answers the same note and creates nothing. Without a key
 * or a title it answers {@code 400}. It does the least an idempotent write endpoint must do (parse,
 * check, remember the key with its answer), so that the scenarios measure what the ledger adds.
 */
final class NotesUpstream implements AutoCloseable {
  static final String PATH = "/notes";

  private final Server server;
  private final ServerConnector connector;
  private final AtomicLong effects = new AtomicLong();
  private final AtomicLong calls = new AtomicLong();
  private final Map<String, byte[]> answers = new ConcurrentHashMap<>();

  NotesUpstream() {
    QueuedThreadPool threads = new QueuedThreadPool(64, 4);
    threads.setName("bench-upstream");
    this.server = new Server(threads);
    this.connector = new ServerConnector(server, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback)
              throws Exception {
            answer(request, response, callback);
            return true;
          }
        });
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the bench's upstream: " + e.getMessage(), e);
    }
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + connector.getLocalPort());
  }

  /** Notes created: one per distinct key. */
  long effects() {
    return effects.get();
  }

  /** Requests answered {@code 201}, retries included. */
  long calls() {
    return calls.get();
  }

  private void answer(Request request, Response response, Callback callback) throws Exception {
    String key = request.getHeaders().get("Idempotency-Key");
    if (!"POST".equals(request.getMethod())
        || !PATH.equals(Request.getPathInContext(request))
        || key == null) {
      write(response, callback, 400, "{\"error\":\"POST /notes with an Idempotency-Key\"}");
      return;
    }
    String text = Content.Source.asString(request, StandardCharsets.UTF_8);
    JsonNode note;
    try {
      note = Json.parse(text);
    } catch (MalformedJsonException e) {
      note = null;
    }
    if (note == null || !note.path("title").isTextual()) {
      write(response, callback, 400, "{\"error\":\"send a JSON object with a title\"}");
      return;
    }
    JsonNode created = note;
    byte[] body =
        answers.computeIfAbsent(
            key,
            k -> {
              ObjectNode answer = Json.object();
              answer.put("id", effects.incrementAndGet());
              answer.put("title", created.path("title").textValue());
              return Json.write(answer).getBytes(StandardCharsets.UTF_8);
            });
    calls.incrementAndGet();
    response.setStatus(201);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  private static void write(Response response, Callback callback, int status, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      System.err.println("toolledger bench: the upstream did not stop cleanly: " + e);
    }
  }
}
