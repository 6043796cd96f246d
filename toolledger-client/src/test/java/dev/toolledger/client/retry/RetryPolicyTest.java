package dev.toolledger.client.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void defaultsAreTheDocumentedConstants() {
    RetryPolicy policy = RetryPolicy.defaults();

    assertThat(policy.maxAttempts()).isEqualTo(5);
    assertThat(policy.deadline()).isEqualTo(Duration.ofSeconds(30));
    assertThat(policy.baseDelay()).isEqualTo(Duration.ofMillis(200));
    assertThat(policy.maxDelay()).isEqualTo(Duration.ofSeconds(5));
    assertThat(policy.budgetTokens()).isEqualTo(20.0);
    assertThat(policy.budgetFloor()).isEqualTo(10.0);
    assertThat(policy.budgetRefund()).isEqualTo(0.1);
  }

  @Test
  void buildNamesTheBadOption() {
    assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0).build())
        .hasMessageContaining("maxAttempts");
    assertThatThrownBy(() -> RetryPolicy.builder().deadline(Duration.ZERO).build())
        .hasMessageContaining("deadline");
    assertThatThrownBy(
            () ->
                RetryPolicy.builder().backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
        .hasMessageContaining("backoff max");
    assertThatThrownBy(
            () -> RetryPolicy.builder().backoff(Duration.ZERO, Duration.ofSeconds(1)).build())
        .hasMessageContaining("backoff base");
    assertThatThrownBy(() -> RetryPolicy.builder().budget(0.5, 0, 0.1).build())
        .hasMessageContaining("budget tokens");
    assertThatThrownBy(() -> RetryPolicy.builder().budget(10, 10, 0.1).build())
        .hasMessageContaining("budget floor");
    assertThatThrownBy(() -> RetryPolicy.builder().budget(10, 5, -1).build())
        .hasMessageContaining("budget refund");
    assertThatThrownBy(() -> RetryPolicy.builder().budget(Double.NaN, 0, 0).build())
        .hasMessageContaining("budget tokens");
    assertThatThrownBy(() -> RetryPolicy.builder().sleeper(null).build())
        .hasMessageContaining("sleeper");
  }

  @Test
  void backoffCeilingDoublesUpToTheCapAndNeverOverflows() {
    RetryPolicy policy =
        RetryPolicy.builder().backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build();

    assertThat(policy.backoffCeiling(0)).isEqualTo(Duration.ofMillis(100));
    assertThat(policy.backoffCeiling(1)).isEqualTo(Duration.ofMillis(200));
    assertThat(policy.backoffCeiling(3)).isEqualTo(Duration.ofMillis(800));
    assertThat(policy.backoffCeiling(4)).isEqualTo(Duration.ofSeconds(1));
    assertThat(policy.backoffCeiling(63)).isEqualTo(Duration.ofSeconds(1));
    assertThat(policy.backoffCeiling(Integer.MAX_VALUE)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void toBuilderKeepsEverySetting() {
    RetryPolicy policy =
        RetryPolicy.builder()
            .maxAttempts(9)
            .deadline(Duration.ofSeconds(7))
            .backoff(Duration.ofMillis(3), Duration.ofMillis(30))
            .budget(50, 1, 2)
            .build();

    assertThat(policy.toBuilder().build().toString()).isEqualTo(policy.toString());
  }
}
