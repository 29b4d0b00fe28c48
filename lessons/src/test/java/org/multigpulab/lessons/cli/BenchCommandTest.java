package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.lessons.errors.UserError;

class BenchCommandTest {

    @Test
    void eachEpochsShareIsTakenAgainstItsOwnRoundsPeak() {
        // 1 TFLOP an epoch: 100 GFLOP/s against 200, 125 against 250, 83 against 100: shares 0.5, 0.5, 0.83
        List<BenchCommand.Epoch> epochs = List.of(
                new BenchCommand.Epoch("cpu", 1, 10, 1e12, 0.1, 200),
                new BenchCommand.Epoch("sim x1", 1, 5, 1e12, 0.1, 200),
                new BenchCommand.Epoch("cpu", 2, 8, 1e12, 0.1, 250),
                new BenchCommand.Epoch("cpu", 3, 12, 1e12, 0.1, 100));
        BenchCommand.Summary cpu = BenchCommand.summary("cpu", epochs);
        assertEquals(10, cpu.medianSec(), 1e-12);
        assertEquals(100, cpu.gflops(), 1e-9);
        assertEquals(0.5, cpu.peakShare(), 1e-12);
        assertArrayEquals(new double[] {10, 8, 12}, cpu.allSec());
    }

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
