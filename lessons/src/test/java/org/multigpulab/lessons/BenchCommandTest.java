package org.multigpulab.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.lessons.errors.UserError;

class BenchCommandTest {

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(9.0, BenchCommand.median(new double[] {11.2, 9.0, 8.5}));
        assertEquals(9.25, BenchCommand.median(new double[] {9.5, 11.2, 9.0, 8.5}));
    }

    @Test
    void theDefaultResultsFolderIsMadeWhereNoneIsYet(@TempDir Path dir) {
        Path run = dir.resolve("runs").resolve("2026-12-02T11-39-55");
        Path out = BenchCommand.resultsFile(null, run);
        assertEquals(run.resolve("bench.json"), out);
        assertTrue(Files.isDirectory(run), "the run's folder is made before the epochs start");
    }

    @Test
    void aJsonFileInAFolderThatIsNotThereIsRefusedBeforeTheEpochs(@TempDir Path dir) {
        Path json = dir.resolve("missing").resolve("bench.json");
        UserError e = assertThrows(UserError.class, () -> BenchCommand.resultsFile(json, dir.resolve("runs")));
        assertTrue(e.getMessage().contains("--json"), e.getMessage());
        assertTrue(Files.notExists(dir.resolve("runs")), "no default folder made when --json is given");
    }
}
