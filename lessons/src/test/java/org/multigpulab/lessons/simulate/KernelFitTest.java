package org.multigpulab.lessons.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.ReplicaUpdate;

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

    /**
     * The notebook's epoch on that H200, its host on that machine's processor ({@code host-cpu h200-xeon}): within
     * 20 % of the middle of the epochs measured there.
     */
    @Test
    void theNotebooksEpochOnTheH200WithItsHostsProcessorLandsWithinTwentyPercent() {
        double[] measured = KernelFit.h200EpochSec();
        TimeOnlyEpoch.Result r = TimeOnlyEpoch.run(
                new TimeOnlyEpoch.Setup(
                        1,
                        1,
                        KernelFit.PROFILE,
                        null,
                        null,
                        Model.named("lenet"),
                        256,
                        60_000,
                        AllReduceAlgorithm.NAIVE,
                        0,
                        true,
                        "h200-xeon",
                        ReplicaUpdate.EACH,
                        false),
                null);
        double middle = (measured[0] + measured[1]) / 2;
        String line = String.format(
                Locale.ROOT,
                "simulated %.3f s an epoch, measured %.2f–%.2f s: %+.1f %% of the middle",
                r.withDataLoaderSec(),
                measured[0],
                measured[1],
                100 * (r.withDataLoaderSec() / middle - 1));
        System.out.println(line);
        assertTrue(Math.abs(r.withDataLoaderSec() / middle - 1) <= 0.20, line);
    }
}
