package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.multigpulab.lessons.lesson.MultiProcessLesson;

/** {@code mpirun … ./lab train --dist mpi} from a test: with the test's class path, run to its end. */
final class MpiRun {

    private MpiRun() {}

    /** {@code mpirun -np ranks java … Lab train --dist mpi options}. */
    static List<String> command(int ranks, List<String> options) {
        return MultiProcessLesson.mpirunTrain(ranks, options);
    }

    static List<String> command(int ranks, String... options) {
        return command(ranks, List.of(options));
    }

    /** Runs {@code command} to its end, asserting it ends within 5 minutes with status 0; what it printed. */
    static String succeed(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "mpirun did not finish:\n" + out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
