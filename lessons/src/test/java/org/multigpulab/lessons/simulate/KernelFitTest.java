package org.multigpulab.lessons.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The GPU's fixed time per kernel against the H200's measured LeNet steps: fitted on the calibration shards (256 and
 * 32 images), the sim's own figure is the fit's, and every shard's simulated kernels, the validation shard's (128)
 * among them, land within 20 % of the measured.
 */
class KernelFitTest {

    @Test
    void theFittedTimePerKernelIsTheSimsAndEveryShardLandsWithinTwentyPercent() {
        List<KernelFit.Shard> shards = KernelFit.h200();
        KernelFit fit = KernelFit.of(shards);
        String table = fit.table();
        System.out.println(table);
        assertTrue(shards.stream().anyMatch(s -> !s.calibration()), "no validation shard");
        for (KernelFit.Row row : fit.rows()) {
            assertTrue(Math.abs(row.error()) <= 0.20, table);
            assertEquals(
                    row.simulatedSec(),
                    KernelFit.simulatedSec(row.shard()),
                    0.01 * row.simulatedSec(),
                    "the sim's own figures are not the fit's\n" + table);
        }
    }
}
