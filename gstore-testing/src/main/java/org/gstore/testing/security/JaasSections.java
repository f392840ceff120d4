package org.gstore.testing.security;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;

/**
 * The JVM's JAAS configuration with sections of our own on top (ZooKeeper's {@code Server} and {@code Client},
 * say), set in code rather than through {@code java.security.auth.login.config}, which JAAS reads only once.
 */
public final class JaasSections extends Configuration {
  private final Configuration underneath;
  private final Map<String, AppConfigurationEntry[]> sections = new ConcurrentHashMap<>();

  private JaasSections(Configuration underneath) {
    this.underneath = underneath;
  }

  /** Installs a configuration with {@code sections} over the JVM's current one; returns it. */
  public static JaasSections install(Map<String, AppConfigurationEntry> sections) {
    Configuration current;
    try {
      current = Configuration.getConfiguration();
    } catch (SecurityException noneYet) {
      current = null;
    }
    JaasSections installed = new JaasSections(current);
    sections.forEach((name, entry) -> installed.sections.put(name, new AppConfigurationEntry[] {entry}));
    Configuration.setConfiguration(installed);
    return installed;
  }

  /** Adds or replaces a section. */
  public void put(String name, AppConfigurationEntry entry) {
    sections.put(name, new AppConfigurationEntry[] {entry});
  }

  /** Puts the configuration this one was installed over back. */
  public void uninstall() {
    Configuration.setConfiguration(underneath);
  }

  @Override
  public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
    AppConfigurationEntry[] ours = sections.get(name);
    return ours != null || underneath == null ? ours : underneath.getAppConfigurationEntry(name);
  }

  @Override
  public void refresh() {
    if (underneath != null) {
      underneath.refresh();
    }
  }
}
