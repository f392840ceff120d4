package org.gstore.common;

/**
 * The release this code belongs to, from its jar's manifest ({@code Implementation-Version}, written by every
 * module's build). Servers log it at start and {@code gstore version} prints it, so an operator in the middle of a
 * rolling upgrade can tell which servers run which release.
 */
public final class GStoreVersion {
  /** What {@link #current()} says when the classes were not loaded from a built jar (an IDE, target/classes). */
  public static final String UNKNOWN = "unknown (not loaded from a release jar)";

  private GStoreVersion() {}

  /** The running release, for example {@code 0.1.0}, or {@link #UNKNOWN}. */
  public static String current() {
    String version = GStoreVersion.class.getPackage().getImplementationVersion();
    return version == null || version.isBlank() ? UNKNOWN : version;
  }
}
