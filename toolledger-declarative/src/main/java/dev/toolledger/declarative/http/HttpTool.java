package dev.toolledger.declarative.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.api.DownstreamStatus;
import dev.toolledger.api.EffectContext;
import dev.toolledger.api.EffectResult;
import dev.toolledger.api.ExternalTool;
import dev.toolledger.api.ToolDescriptor;
import dev.toolledger.api.ToolResponse;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A tool of {@code kind: http}: one call to an existing REST write endpoint per operation, carrying
 * the operation's downstream key in an idempotency header. The engine claims the key, calls {@link
 * #perform} outside any transaction and records the outcome under its fencing token; this class
 * only maps HTTP onto that:
 *
 * <ul>
 *   <li>an answer in {@code success} or {@code business-error} is the outcome to record (its status
 *       and its body, JSON or wrapped as {@code {"text": ...}});
 *   <li>an answer in {@code not-done}, or a connection that could not be made, means nothing
 *       happened: the claim is released;
 *   <li>anything else (another status, a timeout, a connection dropped after sending, a body over
 *       {@value #MAX_BODY_BYTES} bytes) throws: the effect may or may not have happened, and the
 *       engine settles it by the lookup, by performing again when the upstream is idempotent by the
 *       key, or as {@code UNKNOWN}.
 * </ul>
 *
 * <p>It does not make a non-idempotent upstream exactly-once: without a lookup, a lost answer stays
 * {@code UNKNOWN}. It never logs; {@link #toString()} shows no header value and no key.
 */
final class HttpTool implements ExternalTool {
  /** The largest upstream body read: 1 MiB. Larger answers are treated as uncertain. */
  static final int MAX_BODY_BYTES = 1024 * 1024;

  enum BodyMode {
    /** Send the validated parameters object as the body. */
    PARAMETERS,
    /** Send the expanded body template. */
    TEMPLATE,
    /** Send no body. */
    NONE
  }

  record Request(
      String method,
      UrlTemplate url,
      BodyMode bodyMode,
      Optional<BodyTemplate> body,
      List<Header> headers,
      Optional<String> idempotencyHeader,
      Duration timeout,
      Duration connectTimeout) {
    Request {
      headers = List.copyOf(headers);
    }
  }

  record Outcomes(StatusSet success, StatusSet businessError, StatusSet notDone) {}

  record Lookup(
      String method, UrlTemplate url, List<Header> headers, StatusSet found, StatusSet absent) {
    Lookup {
      headers = List.copyOf(headers);
    }
  }

  private final ToolDescriptor descriptor;
  private final Request request;
  private final Outcomes outcomes;
  private final Optional<Lookup> lookup;
  private final boolean idempotentUpstream;
  private final Duration lease;
  private final Upstream upstream;

  HttpTool(
      ToolDescriptor descriptor,
      Request request,
      Outcomes outcomes,
      Optional<Lookup> lookup,
      boolean idempotentUpstream,
      Duration lease) {
    this.descriptor = Objects.requireNonNull(descriptor, "descriptor");
    this.request = Objects.requireNonNull(request, "request");
    this.outcomes = Objects.requireNonNull(outcomes, "outcomes");
    this.lookup = Objects.requireNonNull(lookup, "lookup");
    this.idempotentUpstream = idempotentUpstream;
    this.lease = Objects.requireNonNull(lease, "lease");
    this.upstream = new Upstream(request.connectTimeout(), MAX_BODY_BYTES);
  }

  @Override
  public ToolDescriptor descriptor() {
    return descriptor;
  }

  @Override
  public Duration lease() {
    return lease;
  }

  @Override
  public boolean supportsLookup() {
    return lookup.isPresent();
  }

  @Override
  public boolean idempotentDownstream() {
    return idempotentUpstream;
  }

  @Override
  public EffectResult perform(EffectContext context, JsonNode parameters) throws Exception {
    Upstream.Call http;
    try {
      http = build(context, parameters);
    } catch (TemplateException e) {
      return EffectResult.notDone("the request could not be built: " + e.getMessage());
    }
    Upstream.Answer answer;
    try {
      answer = upstream.exchange(http, request.timeout());
    } catch (Upstream.NothingSent e) {
      return EffectResult.notDone(e.getMessage());
    }
    int status = answer.status();
    if (outcomes.notDone().contains(status)) {
      return EffectResult.notDone(
          "the upstream answered " + status + ", a not-done status: nothing happened");
    }
    if (outcomes.success().contains(status) || outcomes.businessError().contains(status)) {
      return EffectResult.done(ToolResponse.of(status, Upstream.json(answer)));
    }
    throw new UnclassifiedUpstreamStatusException(status);
  }

  @Override
  public DownstreamStatus lookup(EffectContext context, JsonNode parameters) throws Exception {
    Lookup spec =
        lookup.orElseThrow(() -> new UnsupportedOperationException(name() + " has no lookup"));
    URI uri;
    try {
      uri = spec.url().expand(parameters, context.downstreamKey());
    } catch (TemplateException e) {
      throw new IOException("the lookup request could not be built: " + e.getMessage());
    }
    Upstream.Call http =
        new Upstream.Call(spec.method(), uri, headers(spec.headers(), false), null);
    Upstream.Answer answer;
    try {
      answer = upstream.exchange(http, request.timeout());
    } catch (Upstream.NothingSent e) {
      throw new IOException("the lookup could not be sent: " + e.getMessage());
    }
    if (spec.found().contains(answer.status())) {
      return new DownstreamStatus.Found(ToolResponse.of(answer.status(), Upstream.json(answer)));
    }
    if (spec.absent().contains(answer.status())) {
      return new DownstreamStatus.Absent();
    }
    return new DownstreamStatus.Pending();
  }

  private Upstream.Call build(EffectContext context, JsonNode parameters) throws TemplateException {
    URI uri = request.url().expand(parameters, null);
    JsonNode body =
        switch (request.bodyMode()) {
          case PARAMETERS -> parameters;
          case TEMPLATE -> request.body().orElseThrow().expand(parameters);
          case NONE -> null;
        };
    List<Header> headers = headers(request.headers(), body != null);
    request
        .idempotencyHeader()
        .ifPresent(name -> headers.add(new Header(name, context.downstreamKey())));
    return new Upstream.Call(
        request.method(), uri, headers, body == null ? null : Upstream.write(body));
  }

  /** The declared headers, plus JSON's {@code Accept} and {@code Content-Type} unless declared. */
  private static List<Header> headers(List<Header> declared, boolean hasBody) {
    List<Header> headers = new ArrayList<>(declared.size() + 3);
    boolean accept = false;
    boolean contentType = false;
    for (Header header : declared) {
      headers.add(header);
      accept |= header.name().equalsIgnoreCase("Accept");
      contentType |= header.name().equalsIgnoreCase("Content-Type");
    }
    if (!accept) {
      headers.add(new Header("Accept", "application/json"));
    }
    if (hasBody && !contentType) {
      headers.add(new Header("Content-Type", "application/json"));
    }
    return headers;
  }

  @Override
  public String toString() {
    return "HttpTool["
        + descriptor.name()
        + " "
        + request.method()
        + " "
        + request.url().origin()
        + (lookup.isPresent() ? ", with lookup" : "")
        + (idempotentUpstream ? ", idempotent upstream" : "")
        + "]";
  }
}
