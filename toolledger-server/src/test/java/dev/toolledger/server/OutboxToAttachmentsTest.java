package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.core.outbox.OutboxEvent;
import dev.toolledger.core.outbox.OutboxState;
import dev.toolledger.examples.notes.NotesPlugin;
import dev.toolledger.examples.notes.NotesTool;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.server.attachments.AttachmentService;
import dev.toolledger.testkit.DropPolicy;
import dev.toolledger.testkit.LossyProxy;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A note with an attachment commits with an outbox event; the relay delivers it to the real
 * attachment service over HTTP, which deduplicates redeliveries with its inbox.
 */
class OutboxToAttachmentsTest {
  @TempDir Path dir;
  AttachmentService attachments;
  LossyProxy network;
  Cluster cluster;

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (network != null) {
      network.close();
    }
    if (attachments != null) {
      attachments.close();
    }
  }

  private void start(DropPolicy acknowledgementsLost, int maxAttempts) {
    attachments = AttachmentService.start(dir.resolve("attachments.db"), "127.0.0.1", 0);
    network = LossyProxy.start(attachments.uri(), acknowledgementsLost);
    URI endpoint = network.uri().resolve("/v1/attachments");
    cluster =
        Cluster.sqlite(
            dir.resolve("ledger.db"),
            builder ->
                builder
                    .plugin(NotesPlugin.serving(NotesTool.unlimited().withAttachments(endpoint)))
                    .relay(
                        relay ->
                            relay
                                .pollInterval(Duration.ofMillis(20))
                                .backoff(Duration.ofMillis(10), Duration.ofMillis(50))
                                .maxAttempts(maxAttempts)));
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void attachmentIsDeliveredOnceWithTheEventIdAsItsKey() throws Exception {
    start(DropPolicy.never(), 12);
    String token = cluster.token("acme");

    Reply created =
        Http.createNote(
            cluster.node(0), token, "op-1", "{\"title\":\"t\",\"attachment\":\"hello\"}");
    Reply retry =
        Http.createNote(
            cluster.node(0), token, "op-1", "{\"title\":\"t\",\"attachment\":\"hello\"}");

    assertThat(created.status()).isEqualTo(201);
    String eventId = created.json().get("attachmentEvent").asText();
    assertThat(eventId).startsWith("evt_");
    assertThat(retry.body()).isEqualTo(created.body());
    await("delivery", () -> attachments.processed() == 1);
    await(
        "marked delivered",
        () -> cluster.store().findEvent(eventId).orElseThrow().state() == OutboxState.DELIVERED);
    assertThat(attachments.deliveries()).isEqualTo(1);
    assertThat(cluster.count("SELECT COUNT(*) FROM tl_outbox")).isEqualTo(1);
  }

  @Test
  void noteWithoutAnAttachmentEnqueuesNothing() throws Exception {
    start(DropPolicy.never(), 12);
    Http.createNote(cluster.node(0), cluster.token("acme"), "op-1", "{\"title\":\"t\"}");

    assertThat(cluster.count("SELECT COUNT(*) FROM tl_outbox")).isZero();
  }

  @Test
  void lostAcknowledgementsCauseRedeliveriesButOneEffect() throws Exception {
    start(DropPolicy.next(2, DropPolicy.posts()), 12);
    String token = cluster.token("acme");

    Reply created =
        Http.createNote(
            cluster.node(0), token, "op-1", "{\"title\":\"t\",\"attachment\":\"hello\"}");
    String eventId = created.json().get("attachmentEvent").asText();

    await(
        "delivered",
        () -> cluster.store().findEvent(eventId).orElseThrow().state() == OutboxState.DELIVERED);
    assertThat(attachments.deliveries()).isEqualTo(3);
    assertThat(attachments.processed()).isEqualTo(1);
    assertThat(attachments.duplicateEffects()).isZero();
    assertThat(cluster.store().findEvent(eventId).orElseThrow().attempts()).isEqualTo(3);
  }

  @Test
  void eventThatOutlivesItsAttemptsIsDeadAndCanBeRearmed() throws Exception {
    start(DropPolicy.next(3, DropPolicy.posts()), 3);
    String token = cluster.token("acme");

    Reply created =
        Http.createNote(
            cluster.node(0), token, "op-1", "{\"title\":\"t\",\"attachment\":\"hello\"}");
    String eventId = created.json().get("attachmentEvent").asText();

    await(
        "dead", () -> cluster.store().findEvent(eventId).orElseThrow().state() == OutboxState.DEAD);
    OutboxEvent dead = cluster.store().findEvent(eventId).orElseThrow();
    assertThat(dead.attempts()).isEqualTo(3);
    assertThat(dead.lastError()).isPresent();
    assertThat(cluster.store().listEvents(OutboxState.DEAD, 10))
        .extracting(OutboxEvent::id)
        .contains(eventId);
    assertThat(cluster.store().countEvents().get(OutboxState.DEAD)).isEqualTo(1);

    assertThat(cluster.store().rearm(eventId)).isTrue();
    await(
        "delivered after re-arming",
        () -> cluster.store().findEvent(eventId).orElseThrow().state() == OutboxState.DELIVERED);
    assertThat(attachments.processed()).isEqualTo(1);
  }
}
