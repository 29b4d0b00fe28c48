package org.multigpulab.lessons.cli;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** DESIGN.md's module rules, checked on the compiled main classes of every module on the class path. */
class ArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                // ArchUnit knows test-classes folders but not test-jars: from verify on, Maven puts device-api's
                // conformance kit on the class path as device-api-…-tests.jar, and JUnit is no part of the rules.
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("org.multigpulab");
    }

    @Test
    void everyModuleIsOnTheClassPath() {
        for (String pkg : new String[] {
            "org.multigpulab.device",
            "org.multigpulab.core",
            "org.multigpulab.backend.cpu",
            "org.multigpulab.backend.sim",
            "org.multigpulab.backend.opencl",
            "org.multigpulab.backend.djl",
            "org.multigpulab.dist.mpi",
            "org.multigpulab.lessons"
        }) {
            if (classes.stream().noneMatch(c -> c.getPackageName().startsWith(pkg))) {
                throw new AssertionError(
                        "no classes of " + pkg + " were imported; the rules below would pass vacuously");
            }
        }
    }

    @Test
    void coreNeverNamesABackend() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.core..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.multigpulab.backend..")
                .check(classes);
    }

    @Test
    void deviceApiDependsOnTheJdkOnly() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.device..")
                .should()
                .dependOnClassesThat()
                .resideOutsideOfPackages("org.multigpulab.device..", "java..")
                .check(classes);
    }

    @Test
    void coreDependsOnDeviceApiAndTheJdkOnly() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.core..")
                .should()
                .dependOnClassesThat()
                .resideOutsideOfPackages("org.multigpulab.core..", "org.multigpulab.device..", "java..")
                .check(classes);
    }

    @Test
    void aBackendNamesNeitherCoreNorAnotherBackend() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.backend..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.multigpulab.core..", "org.multigpulab.lessons..", "org.multigpulab.dist..")
                .check(classes);
        slices().matching("org.multigpulab.backend.(*)..")
                .should()
                .notDependOnEachOther()
                .check(classes);
    }

    @Test
    void simFindsItsPhysicalDeviceOnlyThroughServiceLoader() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.backend.sim..")
                .should()
                .dependOnClassesThat(resideInAPackage("org.multigpulab.backend..")
                        .and(not(resideInAPackage("org.multigpulab.backend.sim.."))))
                .check(classes);
    }

    /** The classes of {@code org.multigpulab.backend.NAME} come from the jar or classes folder of {@code backend-NAME}. */
    @Test
    void eachBackendIsAModuleOfItsOwn() {
        for (JavaClass c : classes) {
            String pkg = c.getPackageName();
            if (!pkg.startsWith("org.multigpulab.backend.")) {
                continue;
            }
            String module = "backend-" + pkg.split("\\.")[3];
            String from =
                    c.getSource().map(source -> source.getUri().toString()).orElse("an unknown place");
            if (!from.contains("/" + module + "/")) {
                throw new AssertionError(c.getName() + " comes from " + from + ", not from the module " + module);
            }
        }
    }

    @Test
    void lessonsReachBackendsOnlyThroughServiceLoader() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.lessons..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.multigpulab.backend..")
                .check(classes);
    }

    @Test
    void distributionUsesCoreAndIsFoundByName() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.dist..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.multigpulab.backend..", "org.multigpulab.lessons..")
                .check(classes);
        noClasses()
                .that()
                .resideInAnyPackage(
                        "org.multigpulab.lessons..",
                        "org.multigpulab.core..",
                        "org.multigpulab.backend..",
                        "org.multigpulab.device..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.multigpulab.dist..")
                .check(classes);
    }

    /**
     * The lab's rooms, each a package named for what it holds, in layers: the command line over the lessons, over the
     * simulator's driver and validation (simulate, collectives, validate), over how a run is assembled and set up,
     * over the plots, over the file formats; errors, console output and the peak-FLOPs probe beneath them all. Each
     * reaches only down.
     */
    @Test
    void theLabsRoomsReachOnlyDown() {
        layeredArchitecture()
                .consideringOnlyDependenciesInAnyPackage("org.multigpulab.lessons..")
                .layer("command line")
                .definedBy("org.multigpulab.lessons.cli..")
                .layer("lessons")
                .definedBy("org.multigpulab.lessons.lesson..")
                .layer("simulator")
                .definedBy(
                        "org.multigpulab.lessons.simulate..",
                        "org.multigpulab.lessons.collectives..",
                        "org.multigpulab.lessons.validate..")
                .layer("runs")
                .definedBy("org.multigpulab.lessons.run..", "org.multigpulab.lessons.setup..")
                .layer("plots")
                .definedBy("org.multigpulab.lessons.plot..")
                .layer("file formats")
                .definedBy("org.multigpulab.lessons.files..")
                .layer("basics")
                .definedBy(
                        "org.multigpulab.lessons.errors..",
                        "org.multigpulab.lessons.console..",
                        "org.multigpulab.lessons.bench..")
                .whereLayer("command line")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("lessons")
                .mayOnlyBeAccessedByLayers("command line")
                .whereLayer("simulator")
                .mayOnlyBeAccessedByLayers("command line", "lessons")
                .whereLayer("runs")
                .mayOnlyBeAccessedByLayers("command line", "lessons", "simulator")
                .whereLayer("plots")
                .mayOnlyBeAccessedByLayers("command line", "lessons", "simulator")
                .whereLayer("file formats")
                .mayOnlyBeAccessedByLayers("command line", "lessons", "simulator", "runs", "plots")
                .check(classes);
    }

    @Test
    void noPackageCycles() {
        slices().matching("org.multigpulab.(**)").should().beFreeOfCycles().check(classes);
    }
}
