package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The {@code ./lab} script itself, where it stops before the JVM runs the lab. */
class LabScriptTest {

    /** The repository's root: Maven runs the tests in the module's folder. */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    /**
     * A JVM option that the JVM refuses (here through {@code JAVA_TOOL_OPTIONS}) stops {@code ./lab} with the JVM's
     * own words and where the option came from, not silently: the script runs under {@code set -e}, and the check
     * of the JDK's version used to end it there with status 1 and nothing printed.
     */
    @Test
    void namesAJvmOptionTheJvmRefuses() throws Exception {
        ProcessBuilder builder = new ProcessBuilder(ROOT.resolve("lab").toString(), "--help").directory(ROOT.toFile());
        builder.environment().put("JAVA_TOOL_OPTIONS", "-XX:NoSuchOptionForLabScriptTest");
        Process p = builder.start();
        p.getOutputStream().close();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "./lab did not stop");
        assertEquals(2, p.exitValue(), "stdout: " + out + "\nstderr: " + err);
        assertTrue(err.contains("does not start"), err);
        assertTrue(err.contains("Unrecognized VM option 'NoSuchOptionForLabScriptTest'"), err);
        assertTrue(err.contains("JAVA_TOOL_OPTIONS (-XX:NoSuchOptionForLabScriptTest)"), err);
        assertEquals("", out);
    }
}
