package dev.toolledger.spring;

import dev.toolledger.api.Tool;
import dev.toolledger.api.ToolPlugin;
import dev.toolledger.api.TransactionalTool;
import dev.toolledger.embed.ToolLedger;
import dev.toolledger.server.HttpMount;
import dev.toolledger.server.ServerConfig;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A ToolLedger node in a Spring Boot application: the ledger's tables in the application's {@code
 * DataSource} (migrated at start), every {@link Tool} and {@link ToolPlugin} bean served, the HTTP
 * API and MCP under {@code toolledger.path} of the application's own server, a health contributor
 * and the ledger's meters in the application's registry.
 *
 * <p>{@link TransactionalTool} beans run with the ledger's transaction bound to the data source, so
 * their writes through {@code JdbcTemplate} commit with the record or not at all (see {@link
 * SpringTransactionalTool}). Define a {@link ToolLedger} bean of your own to replace the node.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.simple"
          + ".SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.prometheus"
          + ".PrometheusMetricsExportAutoConfiguration"
    })
@ConditionalOnClass({ToolLedger.class, DataSource.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnProperty(
    prefix = "toolledger",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(ToolLedgerProperties.class)
public class ToolLedgerAutoConfiguration {

  /**
   * The node. Tool beans are collected once, at start: the ledger serves the tools that exist then.
   *
   * @throws IllegalArgumentException for a bad {@code toolledger.*} value, naming it
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public ToolLedger toolLedger(
      DataSource dataSource,
      ToolLedgerProperties properties,
      ObjectProvider<Tool> tools,
      ObjectProvider<ToolPlugin> plugins,
      ObjectProvider<MeterRegistry> meters) {
    ToolLedger.Builder builder =
        ToolLedger.builder(dataSource)
            .busyTimeout(positive(properties.getBusyTimeout(), "toolledger.busy-timeout"))
            .claimWait(positive(properties.getClaimWait(), "toolledger.claim-wait"));
    if (properties.getNodeId() != null) {
      builder.nodeId(properties.getNodeId());
    }
    if (properties.isHttpEnabled()) {
      properties.checkedPath();
      builder.mountedHttp(serverConfig(properties));
    }
    plugins.orderedStream().forEach(builder::plugin);
    tools
        .orderedStream()
        .forEach(
            tool ->
                builder.tool(
                    tool instanceof TransactionalTool transactional
                        ? new SpringTransactionalTool(transactional, dataSource)
                        : tool));
    builder
        .tokenCacheTtl(properties.getTokenCacheTtl())
        .recoveryInterval(properties.getRecoveryInterval())
        .sweepInterval(properties.getSweepInterval())
        .relayEnabled(properties.isRelayEnabled())
        .adoptLedgerSettings(properties.isAdoptLedgerSettings())
        .staleAfter(properties.getStaleAfter())
        .mcpEnabled(properties.isMcpEnabled());
    MeterRegistry registry = meters.getIfAvailable();
    if (registry != null) {
      builder.meterRegistry(registry);
    }
    return builder.build();
  }

  private static ServerConfig serverConfig(ToolLedgerProperties properties) {
    ServerConfig.Builder config = ServerConfig.builder();
    try {
      config.maxRequestBytes(properties.getMaxRequestBytes());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("toolledger.max-request-bytes: " + e.getMessage(), e);
    }
    for (String origin : properties.getAllowedOrigins()) {
      try {
        config.allowedOrigin(origin);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("toolledger.allowed-origins: " + e.getMessage(), e);
      }
    }
    for (String host : properties.getAllowedHosts()) {
      try {
        config.allowedHost(host);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("toolledger.allowed-hosts: " + e.getMessage(), e);
      }
    }
    try {
      return config.build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("toolledger.*: " + e.getMessage(), e);
    }
  }

  private static java.time.Duration positive(java.time.Duration value, String property) {
    if (value == null || value.isNegative()) {
      throw new IllegalArgumentException(property + " must be zero or positive; it is " + value);
    }
    return value;
  }

  /**
   * Registers the API's and MCP's servlets and filters under {@code toolledger.path} of the
   * application's servlet container, in the order the ledger needs (request ids, Origin check,
   * MCP's gate).
   */
  @Bean
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnProperty(
      prefix = "toolledger",
      name = "http-enabled",
      havingValue = "true",
      matchIfMissing = true)
  public ServletContextInitializer toolLedgerServlets(
      ToolLedger toolLedger, ToolLedgerProperties properties) {
    String prefix = properties.checkedPath();
    HttpMount mount =
        toolLedger
            .httpMount()
            .orElseThrow(() -> new IllegalStateException("the ledger was built without HTTP"));
    return servletContext -> register(servletContext, prefix, mount);
  }

  private static void register(ServletContext context, String prefix, HttpMount mount)
      throws ServletException {
    for (HttpMount.ServletEntry entry : mount.servlets()) {
      ServletRegistrationBean<?> servlet =
          new ServletRegistrationBean<>(entry.servlet(), prefix + entry.path());
      servlet.setName("toolledger-" + entry.name());
      servlet.setAsyncSupported(true);
      servlet.onStartup(context);
    }
    for (HttpMount.FilterEntry entry : mount.filters()) {
      FilterRegistrationBean<?> filter = new FilterRegistrationBean<>(entry.filter());
      filter.setName("toolledger-" + entry.name());
      filter.setUrlPatterns(List.of(prefix + entry.path()));
      filter.setAsyncSupported(true);
      filter.onStartup(context);
    }
  }

  /** The ledger in Actuator's health, as {@code toolLedger}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class Health {
    @Bean
    @ConditionalOnMissingBean(name = "toolLedgerHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("toolledger")
    ToolLedgerHealthIndicator toolLedgerHealthIndicator(ToolLedger toolLedger) {
      return new ToolLedgerHealthIndicator(toolLedger);
    }
  }
}
