package dev.toolledger.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class BackgroundPassTest {

  @Test
  void aPassThatThrowsIsRunAgainAtTheNextInterval() throws Exception {
    CountDownLatch thirdRun = new CountDownLatch(3);
    try (BackgroundPass pass =
        BackgroundPass.start(
            "test-pass",
            Duration.ofMillis(10),
            "test",
            LoggerFactory.getLogger(BackgroundPassTest.class),
            () -> {
              thirdRun.countDown();
              throw new IllegalStateException("the database is away");
            })) {
      assertThat(thirdRun.await(5, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void closingInterruptsThePassInProgressAndStopsTheSchedule() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    BackgroundPass pass =
        BackgroundPass.start(
            "test-pass",
            Duration.ofMillis(10),
            "test",
            LoggerFactory.getLogger(BackgroundPassTest.class),
            () -> {
              runs.incrementAndGet();
              started.countDown();
              try {
                Thread.sleep(60_000);
              } catch (InterruptedException e) {
                interrupted.countDown();
              }
            });
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
    pass.close();
    assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
    int after = runs.get();
    Thread.sleep(100);
    assertThat(runs.get()).isEqualTo(after);
  }
}
