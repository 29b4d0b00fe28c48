package org.multigpulab.jupyter;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * DESIGN.md's rules for {@code jupyter-kernel}, which the lessons' ArchitectureTest cannot see (this module depends
 * on the lessons, not the other way): the kernel uses {@code core}, {@code device-api} and {@code lessons}, reaches
 * backends only through them, nothing else names it, and the packages of all modules together have no cycle.
 */
class JupyterArchitectureTest {

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("org.multigpulab");
    }

    @Test
    void theRulesSeeTheKernelAndTheModulesItUses() {
        for (String pkg : new String[] {
            "org.multigpulab.jupyter.kernel",
            "org.multigpulab.jupyter.display",
            "org.multigpulab.lessons",
            "org.multigpulab.core",
            "org.multigpulab.backend.sim"
        }) {
            if (classes.stream().noneMatch(c -> c.getPackageName().startsWith(pkg))) {
                throw new AssertionError("no classes of " + pkg + " were imported; the rules would pass vacuously");
            }
        }
    }

    @Test
    void theKernelReachesBackendsOnlyThroughServiceLoader() {
        noClasses()
                .that()
                .resideInAPackage("org.multigpulab.jupyter..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("org.multigpulab.backend..", "org.multigpulab.dist..")
                .check(classes);
    }

    @Test
    void noOtherModuleNamesTheKernel() {
        noClasses()
                .that()
                .resideOutsideOfPackage("org.multigpulab.jupyter..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.multigpulab.jupyter..")
                .check(classes);
    }

    @Test
    void noPackageCycles() {
        slices().matching("org.multigpulab.(**)").should().beFreeOfCycles().check(classes);
    }
}
