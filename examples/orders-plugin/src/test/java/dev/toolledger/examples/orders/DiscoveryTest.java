package dev.toolledger.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolledger.server.plugins.PluginDiscovery;
import org.junit.jupiter.api.Test;

class DiscoveryTest {
  @Test
  void theServiceFileMakesThePluginFindableOnTheClasspath() {
    assertThat(PluginDiscovery.discover(getClass().getClassLoader()))
        .containsKey("orders")
        .hasValueSatisfying(
            new org.assertj.core.api.Condition<>(p -> p instanceof OrdersPlugin, "OrdersPlugin"));
  }
}
