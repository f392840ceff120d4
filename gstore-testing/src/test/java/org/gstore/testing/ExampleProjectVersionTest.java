package org.gstore.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * {@code gstore-example} stands alone, as a user's project does, so nothing makes it follow this build's version:
 * without this check, a release that forgot to set its {@code gstore.version} would test the example against
 * whatever older G-Store the local Maven repository holds.
 */
class ExampleProjectVersionTest {
  private static String read(Path pom, String xpath) throws Exception {
    Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    return XPathFactory.newInstance().newXPath().evaluate(xpath, doc).trim();
  }

  @Test
  void theExampleDependsOnTheVersionThisBuildMakes() throws Exception {
    Path root = Path.of("..").toAbsolutePath().normalize(); // surefire runs in the module's directory
    String built = read(root.resolve("pom.xml"), "/project/version");
    assertThat(built).isNotEmpty();
    assertThat(read(root.resolve("gstore-example/pom.xml"), "/project/properties/gstore.version"))
        .as("gstore.version in gstore-example/pom.xml (docs/releasing.md)").isEqualTo(built);
  }
}
