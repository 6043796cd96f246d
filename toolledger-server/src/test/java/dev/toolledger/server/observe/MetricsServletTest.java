package dev.toolledger.server.observe;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which peers count as loopback for {@link MetricsAccess#LOOPBACK}. */
class MetricsServletTest {
  @Test
  void onlyLoopbackAddressesCountAsLoopback() {
    assertThat(MetricsServlet.isLoopback("127.0.0.1")).isTrue();
    assertThat(MetricsServlet.isLoopback("127.3.2.1")).isTrue();
    assertThat(MetricsServlet.isLoopback("::1")).isTrue();
    assertThat(MetricsServlet.isLoopback("[::1]")).isTrue();
    assertThat(MetricsServlet.isLoopback("10.0.0.1")).isFalse();
    assertThat(MetricsServlet.isLoopback("192.168.1.20")).isFalse();
    assertThat(MetricsServlet.isLoopback("::ffff:10.0.0.1")).isFalse();
    assertThat(MetricsServlet.isLoopback("localhost")).isFalse();
    assertThat(MetricsServlet.isLoopback("")).isFalse();
    assertThat(MetricsServlet.isLoopback(null)).isFalse();
  }
}
