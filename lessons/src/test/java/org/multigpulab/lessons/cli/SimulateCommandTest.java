package org.multigpulab.lessons.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code ./lab simulate}'s host processor and nn.DataParallel's update: bad input ends in one clear line naming
 * what to do; the book's setting, and only it, prints the book's range beside the prediction.
 */
class SimulateCommandTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--host-cpu xeon-e5-2686v4|error: --host-cpu is the processor of the notebook's host program; add"
                        + " --pytorch-host",
                "--pytorch-host --host-cpu pentium|must be one of [lab-zen5, xeon-e5-2686v4, colab-broadwell, h200-xeon], not"
                        + " 'pentium'",
                "--parallel ddp|error: --parallel must be replicas or dataparallel, not 'ddp'",
                "--parallel dataparallel --bucket-mb 25|error: --parallel dataparallel runs in one node without"
                        + " buckets"
            })
    void badInputEndsInOneClearLine(String options, String expected) {
        List<String> args = new ArrayList<>(List.of("simulate", "--gpus", "2", "--train-samples", "512"));
        args.addAll(List.of(options.split(" ")));
        LabRunner.Result r = LabRunner.run(args.toArray(String[]::new));
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains(expected), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
    }

    @Test
    void theBooksSettingPrintsTheBooksRangeBesideThePrediction() {
        LabRunner.Result r = LabRunner.run(
                "simulate",
                "--profile",
                "v100",
                "--gpus",
                "1",
                "--batch-size",
                "256",
                "--pytorch-host",
                "--host-cpu",
                "xeon-e5-2686v4");
        assertEquals(0, r.exit(), r.err());
        assertTrue(
                r.out()
                        .contains("the book: §12.5 (LeNet, batch 256, 1 GPU) on V100-SXM2 (28 builds of"
                                + " d2l-pytorch-colab, chapter_computational-performance/multiple-gpus.ipynb): 2.1–4.1"
                                + " sec/epoch (median 2.5); this prediction 2.2 sec/epoch inside it"),
                r.out());
    }

    /** §12.6 on 2 GPUs is nn.DataParallel's: every replica updating itself is not the book's run. */
    @Test
    void anotherUpdateThanTheBooksPrintsNoRange() {
        LabRunner.Result r = LabRunner.run(
                "simulate",
                "--profile",
                "v100",
                "--gpus",
                "2",
                "--batch-size",
                "512",
                "--model",
                "resnet18",
                "--train-samples",
                "60000",
                "--pytorch-host",
                "--host-cpu",
                "xeon-e5-2686v4");
        assertEquals(0, r.exit(), r.err());
        assertFalse(r.out().contains("the book"), r.out());
    }
}
