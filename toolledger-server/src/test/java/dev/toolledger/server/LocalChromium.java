package dev.toolledger.server;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Finds a Chromium (or Chrome) and its matching ChromeDriver already installed on this machine.
 *
 * <p>The browser test never downloads a browser: Selenium Manager and Playwright fetch theirs from
 * hosts outside the Maven registry, which a build machine may not reach. So the test drives what is
 * installed, found in this order:
 *
 * <ol>
 *   <li>{@code TOOLLEDGER_CHROME} and {@code TOOLLEDGER_CHROMEDRIVER} (both paths), when set;
 *   <li>the first of {@code chromium}, {@code chromium-browser}, {@code google-chrome}, {@code
 *       google-chrome-stable}, {@code chrome} on the {@code PATH}, with {@code chromedriver} on the
 *       {@code PATH}.
 * </ol>
 *
 * <p>When none is found the browser test is skipped with a message that names what is missing and
 * how to install it, unless {@code TOOLLEDGER_REQUIRE_BROWSER=true} (set by {@code .ci/run}), in
 * which case it fails: CI always runs it.
 */
record LocalChromium(Path browser, Path driver) {
  static final String BROWSER_VARIABLE = "TOOLLEDGER_CHROME";
  static final String DRIVER_VARIABLE = "TOOLLEDGER_CHROMEDRIVER";
  static final String REQUIRE_VARIABLE = "TOOLLEDGER_REQUIRE_BROWSER";

  static final List<String> BROWSER_NAMES =
      List.of("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome");

  static final String HOW_TO_INSTALL =
      "Install a Chromium and its driver (Debian/Ubuntu: `sudo apt-get install chromium"
          + " chromium-driver`; Fedora: `sudo dnf install chromium chromedriver`; macOS: `brew"
          + " install --cask chromium chromedriver`), or point "
          + BROWSER_VARIABLE
          + " and "
          + DRIVER_VARIABLE
          + " at a browser and its matching driver. To run every other test without it: `mvn -B"
          + " verify -DexcludedGroups=browser`.";

  /** The installed browser and driver, or empty with {@link #missing} saying why. */
  static Optional<LocalChromium> find() {
    String browser = System.getenv(BROWSER_VARIABLE);
    String driver = System.getenv(DRIVER_VARIABLE);
    if (browser != null && !browser.isBlank() && driver != null && !driver.isBlank()) {
      Path b = Path.of(browser);
      Path d = Path.of(driver);
      return Files.isExecutable(b) && Files.isExecutable(d)
          ? Optional.of(new LocalChromium(b, d))
          : Optional.empty();
    }
    Optional<Path> foundDriver = onPath("chromedriver");
    for (String name : BROWSER_NAMES) {
      Optional<Path> foundBrowser = onPath(name);
      if (foundBrowser.isPresent() && foundDriver.isPresent()) {
        return Optional.of(new LocalChromium(foundBrowser.get(), foundDriver.get()));
      }
    }
    return Optional.empty();
  }

  /** What was looked for and not found, for the skip or failure message. */
  static String missing() {
    List<String> lacking = new ArrayList<>();
    String browser = System.getenv(BROWSER_VARIABLE);
    if (browser != null && !browser.isBlank()) {
      lacking.add(
          BROWSER_VARIABLE
              + "="
              + browser
              + " / "
              + DRIVER_VARIABLE
              + "="
              + System.getenv(DRIVER_VARIABLE)
              + " (both must be set to executable files)");
    } else {
      if (BROWSER_NAMES.stream().map(LocalChromium::onPath).allMatch(Optional::isEmpty)) {
        lacking.add("a browser (" + String.join(", ", BROWSER_NAMES) + ") on the PATH");
      }
      if (onPath("chromedriver").isEmpty()) {
        lacking.add("chromedriver on the PATH");
      }
    }
    return "no Chromium for the console's browser test: missing "
        + String.join(" and ", lacking)
        + ". "
        + HOW_TO_INSTALL;
  }

  /**
   * Writes to the test JVM's own standard error, which Surefire shows in the build's output even
   * though it redirects {@code System.err} to a report file: a skip must be seen, not only counted.
   */
  static void warn(String message) {
    PrintStream console = new PrintStream(new FileOutputStream(FileDescriptor.err), true, UTF_8);
    console.println();
    console.println("*** " + message);
    console.println();
  }

  static boolean required() {
    return "true".equalsIgnoreCase(System.getenv(REQUIRE_VARIABLE));
  }

  private static Optional<Path> onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
