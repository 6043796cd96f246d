package dev.toolledger.server.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.toolledger.core.engine.LedgerEngine;
import dev.toolledger.core.engine.Resolution;
import dev.toolledger.core.engine.ResolveOutcome;
import dev.toolledger.core.operation.OperationRecord;
import dev.toolledger.protocol.InvalidOperationKeyException;
import dev.toolledger.protocol.Json;
import dev.toolledger.protocol.MalformedJsonException;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.protocol.Problem;
import dev.toolledger.protocol.ProblemType;
import dev.toolledger.server.answer.Answer;
import dev.toolledger.server.answer.Answers;
import dev.toolledger.server.auth.Principal;
import dev.toolledger.server.operations.OperationJson;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code POST /v1/operations/{key}/resolve}: an explicit resolution of an {@code UNKNOWN}
 * operation, or a caller's inquiry that fences a key stuck {@code IN_PROGRESS}.
 */
final class ResolveEndpoint {
  private final LedgerEngine engine;
  private final int maxRequestBytes;

  ResolveEndpoint(LedgerEngine engine, int maxRequestBytes) {
    this.engine = engine;
    this.maxRequestBytes = maxRequestBytes;
  }

  /**
   * @param rawKey the key's path segment, still percent-encoded
   */
  void serve(
      Principal principal, String rawKey, HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (!principal.mayGiveUp() && !principal.mayResolve()) {
      Scopes.check(false, "read and a tools: scope, or resolve", principal, response);
      return;
    }
    byte[] body = BoundedBody.read(request, maxRequestBytes);
    if (body == null) {
      HttpFrame.of(CallToolEndpoint.tooLarge(maxRequestBytes)).writeTo(response);
      return;
    }
    // The scope a request needs follows from the body's shape alone, so that it is checked before
    // the key or the resolution is validated: a token without 'resolve' learns nothing about what
    // a resolution would need, and every body that is not an inquiry asks for a resolution.
    if (ResolutionJson.isInquiry(body)
        ? !Scopes.check(principal.mayGiveUp(), "read and a tools: scope", principal, response)
        : !Scopes.check(principal.mayResolve(), "resolve", principal, response)) {
      return;
    }
    OperationKey key;
    try {
      key = OperationKey.of(Paths.decodeSegment(rawKey));
    } catch (InvalidOperationKeyException | IllegalArgumentException e) {
      HttpFrame.of(Answers.invalidKey(e.getMessage())).writeTo(response);
      return;
    }
    Resolution resolution;
    try {
      resolution = ResolutionJson.parse(body);
    } catch (MalformedJsonException e) {
      HttpFrame.problem(Problem.of(ProblemType.MALFORMED_JSON, e.getMessage())).writeTo(response);
      return;
    } catch (IllegalArgumentException e) {
      HttpFrame.problem(Problem.of(ProblemType.INVALID_PARAMETERS, e.getMessage()))
          .writeTo(response);
      return;
    }
    ResolveOutcome outcome =
        engine.resolve(principal.tenant(), key, resolution, "token:" + principal.tokenId());
    HttpFrame.of(answer(principal, key, outcome)).writeTo(response);
  }

  private Answer answer(Principal principal, OperationKey key, ResolveOutcome outcome) {
    if (outcome instanceof ResolveOutcome.NothingToResolve) {
      return Answers.noOperation();
    }
    if (outcome instanceof ResolveOutcome.Expired expired) {
      return Answers.expired(expired.tombstone());
    }
    OperationRecord record;
    String result;
    if (outcome instanceof ResolveOutcome.Fenced fenced) {
      record = fenced.record();
      result = "fenced";
    } else if (outcome instanceof ResolveOutcome.Current current) {
      record = current.record();
      result = "current";
    } else if (outcome instanceof ResolveOutcome.Resolved resolved) {
      record = resolved.record();
      result = "resolved";
    } else {
      OperationRecord current = ((ResolveOutcome.NotResolvable) outcome).record();
      return Answer.Refused.of(
          Problem.of(
                  ProblemType.NOT_RESOLVABLE,
                  "only an UNKNOWN operation can be resolved explicitly; this one is "
                      + current.state())
              .with("state", Json.mapper().getNodeFactory().textNode(current.state().name())));
    }
    ObjectNode json = OperationJson.of(record, engine.history(principal.tenant(), key));
    json.put("resolution", result);
    return new Answer.Found(json, record.state());
  }
}
