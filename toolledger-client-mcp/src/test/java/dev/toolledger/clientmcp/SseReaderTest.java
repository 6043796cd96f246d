package dev.toolledger.clientmcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The SSE parser of the lean transport, on the edge cases of the event stream format. */
class SseReaderTest {

  @Test
  void dataLinesOfOneEventAreJoinedWithLineFeeds() throws IOException {
    assertThat(events("data: {\"a\":\ndata: 1}\n\n"))
        .containsExactly(new SseReader.Event("message", "{\"a\":\n1}", null));
  }

  @Test
  void everyLineEndIsALineEnd() throws IOException {
    assertThat(events("data: one\r\ndata: two\rdata: three\n\r\n"))
        .extracting(SseReader.Event::data)
        .containsExactly("one\ntwo\nthree");
    assertThat(events("data: a\r\rdata: b\r\r"))
        .extracting(SseReader.Event::data)
        .containsExactly("a", "b");
  }

  @Test
  void commentsAndUnknownFieldsAndRetryAreIgnored() throws IOException {
    assertThat(events(": keep-alive\nretry: 1000\nfoo: bar\ndata: x\n: inside\n\n"))
        .containsExactly(new SseReader.Event("message", "x", null));
  }

  @Test
  void onlyOneSpaceAfterTheColonIsDropped() throws IOException {
    assertThat(events("data:x\n\ndata:  y\n\n"))
        .extracting(SseReader.Event::data)
        .containsExactly("x", " y");
  }

  @Test
  void fieldWithoutColonHasAnEmptyValue() throws IOException {
    assertThat(events("data\ndata\n\n")).extracting(SseReader.Event::data).containsExactly("\n");
  }

  @Test
  void eventWithoutDataIsNotDispatchedAndDoesNotLeakItsType() throws IOException {
    assertThat(events("event: ping\n\ndata: x\n\n"))
        .containsExactly(new SseReader.Event("message", "x", null));
  }

  @Test
  void eventTypeIsKeptAndEmptyDataIsStillAnEvent() throws IOException {
    assertThat(events("event: endpoint\ndata: /x\n\nid: 7\ndata:\n\n"))
        .containsExactly(
            new SseReader.Event("endpoint", "/x", null), new SseReader.Event("message", "", "7"));
  }

  @Test
  void lastEventIdCarriesOverAndAnIdWithNulIsIgnored() throws IOException {
    assertThat(events("id: 1\ndata: a\n\ndata: b\n\nid: 2\u0000\ndata: c\n\nid\ndata: d\n\n"))
        .extracting(SseReader.Event::lastEventId)
        .containsExactly("1", "1", "1", "");
  }

  @Test
  void eventCutOffByTheEndOfTheStreamIsDropped() throws IOException {
    assertThat(events("data: complete\n\ndata: cut"))
        .extracting(SseReader.Event::data)
        .containsExactly("complete");
    assertThat(events("data: no blank line\n")).isEmpty();
  }

  @Test
  void leadingByteOrderMarkIsSkippedAndUtf8IsDecoded() throws IOException {
    assertThat(events("\uFEFFdata: h\u00e9llo \u2603\n\n"))
        .extracting(SseReader.Event::data)
        .containsExactly("h\u00e9llo \u2603");
  }

  @Test
  void eventLargerThanTheLimitFailsTheRead() {
    String big = "data: " + "x".repeat(2000) + "\n\n";
    assertThatThrownBy(() -> read(big, 1024))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than 1024");
    String manyLines = "data: 0123456789\n".repeat(200) + "\n";
    assertThatThrownBy(() -> read(manyLines, 1024))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("longer than 1024");
  }

  private static List<SseReader.Event> events(String stream) throws IOException {
    return read(stream, 1 << 20);
  }

  private static List<SseReader.Event> read(String stream, int max) throws IOException {
    SseReader reader =
        new SseReader(new ByteArrayInputStream(stream.getBytes(StandardCharsets.UTF_8)), max);
    List<SseReader.Event> events = new ArrayList<>();
    for (SseReader.Event e = reader.next(); e != null; e = reader.next()) {
      events.add(e);
    }
    return events;
  }
}
