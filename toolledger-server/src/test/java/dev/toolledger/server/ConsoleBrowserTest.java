package dev.toolledger.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.toolledger.protocol.OperationKey;
import dev.toolledger.server.Http.Reply;
import dev.toolledger.server.auth.OperatorAuthenticator;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The operations console in a real headless Chromium: an operator signs in, sees the UNKNOWN
 * operation (whose key is an attempt at script injection, shown as text and never run), finds it by
 * its key, reads its timeline, resolves it, and sees the change; the API then refuses a retry of
 * the key as the operator decided.
 *
 * <p>Drives a Chromium and ChromeDriver already installed on this machine ({@link LocalChromium}
 * says where it looks); it never downloads one. Without them it is skipped with a message naming
 * what to install, or fails when {@code TOOLLEDGER_REQUIRE_BROWSER=true} ({@code .ci/run} installs
 * Debian's {@code chromium} and {@code chromium-driver} and sets it). Tagged {@code browser}:
 * {@code mvn -B verify -DexcludedGroups=browser} runs everything else.
 */
@Tag("browser")
class ConsoleBrowserTest {
  static final String OPERATOR = "operator-secret-for-tests-0123456789";

  /** A valid operation key (visible ASCII) that would run script if it were put in as HTML. */
  static final String KEY = "mail-<img/src=x/onerror=window.pwned=1>";

  @TempDir Path dir;
  MailTool mail = new MailTool();
  Cluster cluster;
  String acme;
  WebDriver browser;
  WebDriverWait wait;

  @BeforeEach
  void start() {
    Optional<LocalChromium> chromium = LocalChromium.find();
    if (chromium.isEmpty()) {
      String why = LocalChromium.missing();
      if (LocalChromium.required()) {
        throw new IllegalStateException(LocalChromium.REQUIRE_VARIABLE + " is set: " + why);
      }
      LocalChromium.warn("SKIPPED ConsoleBrowserTest: " + why);
      Assumptions.abort(why);
    }
    cluster =
        Cluster.sqlite(
            dir.resolve("ledger.db"),
            builder -> builder.tool(mail).operators(OperatorAuthenticator.sharedSecret(OPERATOR)));
    acme = cluster.token("acme");
    ChromeOptions options = new ChromeOptions();
    options.addArguments(
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--user-data-dir=" + dir.resolve("chromium-profile"));
    options.setBinary(chromium.get().browser().toFile());
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(chromium.get().driver().toFile())
            .usingAnyFreePort()
            .build();
    browser = new ChromeDriver(service, options);
    wait = new WebDriverWait(browser, Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() {
    if (browser != null) {
      browser.quit();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  WebElement byId(String id) {
    return browser.findElement(By.id(id));
  }

  void waitForText(String id, String text) {
    wait.until(ExpectedConditions.textToBe(By.id(id), text));
  }

  @Test
  void operatorFindsAnUnknownOperationResolvesItAndSeesTheChange() {
    mail.next.set(MailTool.Next.SEND_THEN_LOSE_THE_ANSWER);
    Reply unknown =
        Http.post(cluster.node(0), "/v1/tools/send-mail", acme, KEY, "{\"to\":\"a@b.c\"}");
    assertThat(unknown.problemType()).isEqualTo("https://toolledger.dev/problems/outcome-unknown");
    Http.createNote(cluster.node(0), acme, "note-1", "{\"title\":\"a\"}");

    browser.get(cluster.node(0).resolve("/console/").toString());
    byId("token").sendKeys("not-the-operator-token");
    byId("sign-in").click();
    wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("login-error"), "refused"));
    byId("token").sendKeys(OPERATOR);
    byId("sign-in").click();
    wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("console")));

    // What needs attention: the one UNKNOWN operation, its key shown as text.
    waitForText("count-unknown", "1");
    WebElement unknownList = byId("unknown-list");
    assertThat(unknownList.findElements(By.cssSelector("td.key")))
        .extracting(WebElement::getText)
        .containsExactly(KEY);
    assertThat(byId("count-table").getText()).contains("create-note").contains("send-mail");

    // Find it by its key and open it.
    byId("search-key").sendKeys(KEY);
    byId("search-button").click();
    wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#results button.open")));
    byId("results").findElement(By.cssSelector("button.open")).click();
    waitForText("detail-state", "UNKNOWN");
    assertThat(byId("detail-key").getText()).isEqualTo(KEY);
    // The hash its log lines carry, keyed with the ledger's secret; the key itself went in a
    // header.
    assertThat(byId("detail-log-key").getText())
        .isEqualTo(
            cluster
                .app(0)
                .store()
                .keyHasher()
                .hash(dev.toolledger.api.TenantId.of("acme"), OperationKey.of(KEY)));
    List<WebElement> steps = byId("timeline").findElements(By.tagName("li"));
    assertThat(steps).hasSizeGreaterThanOrEqualTo(2);
    assertThat(steps.get(steps.size() - 1).getText()).contains("UNKNOWN");

    // Resolve it: the effect did not happen.
    new Select(byId("resolution")).selectByValue("NOT_EXECUTED");
    byId("reason").sendKeys("the mail server's log shows nothing was sent");
    byId("resolve-button").click();
    waitForText("detail-state", "NOT_EXECUTED");
    wait.until(
        ExpectedConditions.textToBePresentInElementLocated(By.id("resolve-message"), "Resolved"));
    waitForText("count-unknown", "0");
    List<WebElement> after = byId("timeline").findElements(By.tagName("li"));
    assertThat(after.get(after.size() - 1).getText())
        .contains("resolved by an operator")
        .contains("the mail server's log shows nothing was sent")
        .contains("operator:shared-secret");

    // Nothing the key held ran as script, and the page carries no script but its own.
    Object pwned = ((JavascriptExecutor) browser).executeScript("return window.pwned;");
    assertThat(pwned).isNull();
    assertThat(browser.findElements(By.tagName("img"))).isEmpty();
    assertThat(browser.findElements(By.tagName("script"))).hasSize(1);

    // The ledger agrees: a retry of the key is refused, and the mail went out once at most.
    Reply retry =
        Http.post(cluster.node(0), "/v1/tools/send-mail", acme, KEY, "{\"to\":\"a@b.c\"}");
    assertThat(retry.problemType())
        .isEqualTo("https://toolledger.dev/problems/operation-not-executed");
    JsonNode lookup =
        Http.get(
                cluster.node(0),
                "/v1/operations/" + URLEncoder.encode(KEY, StandardCharsets.UTF_8),
                acme)
            .json();
    JsonNode history = lookup.get("history");
    assertThat(history.get(history.size() - 1).get("actor").asText())
        .isEqualTo("operator:shared-secret");
    assertThat(mail.sent).hasSize(1);
  }
}
