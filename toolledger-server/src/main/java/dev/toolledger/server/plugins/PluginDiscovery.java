package dev.toolledger.server.plugins;

import dev.toolledger.api.ToolPlugin;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.stream.Stream;

/**
 * Finds {@link ToolPlugin}s with {@link ServiceLoader}: on the classpath, and in the jars of a
 * plugins directory.
 */
public final class PluginDiscovery {
  private PluginDiscovery() {}

  /**
   * The plugins visible to {@code loader}, by name.
   *
   * @throws IllegalArgumentException when two plugins share a name, or one cannot be instantiated
   */
  public static Map<String, ToolPlugin> discover(ClassLoader loader) {
    Map<String, ToolPlugin> byName = new LinkedHashMap<>();
    try {
      for (ToolPlugin plugin : ServiceLoader.load(ToolPlugin.class, loader)) {
        ToolPlugin earlier = byName.putIfAbsent(plugin.name(), plugin);
        if (earlier != null) {
          throw new IllegalArgumentException(
              "two plugins are named "
                  + plugin.name()
                  + " ("
                  + earlier.getClass().getName()
                  + " and "
                  + plugin.getClass().getName()
                  + "); remove one of the jars");
        }
      }
    } catch (java.util.ServiceConfigurationError e) {
      throw new IllegalArgumentException("a tool plugin could not be loaded: " + e.getMessage(), e);
    }
    return byName;
  }

  /**
   * A class loader over every {@code *.jar} in {@code dir} (not its subdirectories), whose parent
   * is {@code parent}: the plugins see the tool API of the server that loads them.
   *
   * @throws IllegalArgumentException when {@code dir} is not a readable directory
   */
  public static ClassLoader jars(Path dir, ClassLoader parent) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException("plugins directory " + dir + " is not a directory");
    }
    List<URL> urls = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path jar : files.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
        urls.add(jar.toUri().toURL());
      }
    } catch (MalformedURLException e) {
      throw new IllegalArgumentException("bad plugin jar path in " + dir, e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list plugins directory " + dir, e);
    }
    return new URLClassLoader("toolledger-plugins", urls.toArray(URL[]::new), parent);
  }
}
