package org.gstore.coprocessor;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The region-server side's layers, read from the compiled classes: calls go one way, from HBase's entry points down
 * to the leaves, and no package of G-Store (in any module on the classpath) depends on itself through others. Each
 * package's {@code package-info.java} states its charter; this test keeps the code to it.
 *
 * <pre>
 *   org.gstore.coprocessor            entry points HBase calls (region coprocessor, master observer)
 *     endpoint                        client RPCs: protobuf in, domain calls, protobuf out
 *       server                        the runtime on one region server: wiring, protocol, regions, deletes
 *         txn       transport         transactions over group caches | datagrams, peers, key locations
 *           wal                       the shared WAL and the update shipper
 *             config  metrics  concurrent   leaves: settings, metrics, the batching thread
 * </pre>
 */
class LayeringTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("org.gstore");
  }

  /** The layers, as the class comment draws them. */
  static ArchRule layers() {
    return layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("EntryPoints").definedBy("org.gstore.coprocessor")
        .layer("Endpoints").definedBy("org.gstore.coprocessor.endpoint..")
        .layer("Server").definedBy("org.gstore.coprocessor.server..")
        .layer("Transactions").definedBy("org.gstore.coprocessor.txn..")
        .layer("Transport").definedBy("org.gstore.coprocessor.transport..")
        .layer("Wal").definedBy("org.gstore.coprocessor.wal..")
        .layer("Leaves").definedBy("org.gstore.coprocessor.config..", "org.gstore.coprocessor.metrics..",
            "org.gstore.coprocessor.concurrent..")
        .whereLayer("EntryPoints").mayNotBeAccessedByAnyLayer()
        .whereLayer("Endpoints").mayOnlyBeAccessedByLayers("EntryPoints")
        .whereLayer("Server").mayOnlyBeAccessedByLayers("EntryPoints", "Endpoints")
        .whereLayer("Transactions").mayOnlyBeAccessedByLayers("EntryPoints", "Endpoints", "Server")
        .whereLayer("Transport").mayOnlyBeAccessedByLayers("Server")
        .whereLayer("Wal").mayOnlyBeAccessedByLayers("Server", "Transactions")
        .whereLayer("Leaves").mayOnlyBeAccessedByLayers("EntryPoints", "Endpoints", "Server", "Transactions",
            "Transport", "Wal");
  }

  /** No cycle between G-Store's packages, in any module. */
  static ArchRule noCycles() {
    return slices().matching("org.gstore.(**)").should().beFreeOfCycles();
  }

  @Test
  void callsGoDownTheLayers() {
    layers().check(classes);
  }

  @Test
  void noPackageDependsOnItselfThroughOthers() {
    noCycles().check(classes);
  }

  @Test
  void theRulesCatchPlantedViolations() {
    EvaluationResult cycle = noCycles().evaluate(new ClassFileImporter().importClasses(
        org.gstore.coprocessor.planted.up.Up.class, org.gstore.coprocessor.planted.down.Down.class));
    assertThat(cycle.hasViolation()).as("two test packages that call each other").isTrue();

    EvaluationResult upcall = layers().evaluate(new ClassFileImporter().importClasses(
        org.gstore.coprocessor.config.PlantedUpcall.class, org.gstore.coprocessor.server.HostedRegions.class));
    assertThat(upcall.hasViolation()).as("a leaf that calls the server").isTrue();
  }
}
