package org.multigpulab.dist.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.device.testing.Prerequisite;

/** The binding for real: {@link MpiSmoke} under {@code mpirun} on this machine, with 2 and 3 ranks. */
class OpenMpiTest {

    /** {@code mpirun}, or the test is skipped (and fails in CI, which installs Open MPI). */
    static String mpirun() {
        return Prerequisite.mpirun();
    }

    /** The command line that starts {@code mainClass} with this test's class path under {@code mpirun -np ranks}. */
    static List<String> underMpirun(int ranks, String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(
                mpirun(),
                "--allow-run-as-root",
                "--oversubscribe",
                "-np",
                Integer.toString(ranks),
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "--add-modules",
                "jdk.incubator.vector",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        return command;
    }

    record Run(int exit, String output) {}

    static Run run(List<String> command, long timeoutSeconds) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(timeoutSeconds, TimeUnit.SECONDS), "mpirun did not finish");
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void everyCollectiveGivesTheRightValuesOnEveryRank(int ranks) throws Exception {
        Run r = run(underMpirun(ranks, MpiSmoke.class.getName()), 120);
        assertEquals(0, r.exit(), r.output());
        for (int rank = 0; rank < ranks; rank++) {
            assertTrue(r.output().contains("rank " + rank + " of " + ranks + " ok: Open MPI v"), r.output());
        }
    }

    @Test
    void withoutALauncherItIsOneProcess() {
        Assumptions.assumeTrue(System.getenv("OMPI_COMM_WORLD_SIZE") == null);
        ProcessGroup group = ProcessGroup.join("mpi");
        assertEquals(1, group.size());
        assertEquals(0, group.rank());
    }
}
