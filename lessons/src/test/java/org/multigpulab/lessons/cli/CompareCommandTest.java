package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.lessons.files.SafeTensors;

/** {@code ./lab compare A B --from START}: the updates are compared, so a bias moved wrongly is caught. */
class CompareCommandTest {

    @TempDir
    Path dir;

    private Path save(String name, float w, float b) {
        Path file = dir.resolve(name + ".safetensors");
        SafeTensors.write(
                file,
                List.of(
                        new HostTensor("W", new int[] {2}, new float[] {w, w}),
                        new HostTensor("b", new int[] {1}, new float[] {b})));
        return file;
    }

    @Test
    void theToleranceAppliesToTheWorstUpdateFromTheStart() {
        Path start = save("start", 100f, 0f), a = save("a", 101f, 0.011f), b = save("b", 101f, 0.010f);
        String[] args = {"compare", a.toString(), b.toString(), "--from", start.toString(), "--tolerance", "0.05"};

        LabRunner.Result r = LabRunner.run(args);

        // the parameters are 7e-6 apart, within the tolerance; the bias's update is 10 % off, which it catches
        assertEquals(Lab.EXIT_FAILED, r.exit(), r.out() + r.err());
        assertTrue(r.out().strip().endsWith("beyond the tolerance 0.0500 (exit status 1)"), r.out());
        LabRunner.Result parameters = LabRunner.run("compare", a.toString(), b.toString(), "--tolerance", "0.05");
        assertEquals(0, parameters.exit());
        assertTrue(parameters.out().strip().endsWith("within the tolerance 0.0500 (exit status 0)"), parameters.out());
    }

    /** A tolerance no distance can be within, or that every distance is, is refused before the files are read. */
    @Test
    void aToleranceMustBeAFiniteNumberOfZeroOrMore() {
        Path a = save("a", 1f, 0f);
        for (String tolerance : List.of("-1", "NaN", "Infinity")) {
            LabRunner.Result r = LabRunner.run("compare", a.toString(), a.toString(), "--tolerance", tolerance);
            assertEquals(Lab.EXIT_USAGE, r.exit(), tolerance);
            assertTrue(r.err().startsWith("error: --tolerance must be a finite number of 0 or more"), r.err());
        }
    }

    @Test
    void aStartOfOtherTensorsIsRefusedByName() {
        Path start = dir.resolve("other.safetensors");
        SafeTensors.write(start, List.of(new HostTensor("V", new int[] {2}, new float[] {0, 0})));
        Path a = save("a", 1f, 0f), b = save("b", 1f, 0f);

        LabRunner.Result r = LabRunner.run("compare", a.toString(), b.toString(), "--from", start.toString());

        assertEquals(Lab.EXIT_USAGE, r.exit());
        assertTrue(r.err().contains(start + " does not hold the parameters"), r.err());
    }
}
