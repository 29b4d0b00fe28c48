package org.multigpulab.lessons.simulate;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.multigpulab.core.model.TorchvisionResNet;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.lessons.errors.UserError;

/** torchvision's ResNet-50 timed without computing: DDP's buckets overlap the backward pass, and memory is checked. */
class ResNetTimeOnlyTest {

    private static TimeOnlyEpoch.Setup resnet50(String profile, int gpus, int batchPerGpu, long bucketBytes) {
        return new TimeOnlyEpoch.Setup(
                        gpus,
                        1,
                        profile,
                        null,
                        null,
                        TorchvisionResNet.resnet50(),
                        batchPerGpu * gpus,
                        batchPerGpu * gpus,
                        AllReduceAlgorithm.named("ring"),
                        bucketBytes,
                        false)
                .withProcessPerGpu();
    }

    /**
     * One step on 2 V100s. Its communication alone is what the step without buckets (every gradient summed after the
     * backward pass) takes beyond one GPU's step; with DDP's buckets, summed while the backward pass goes on, less
     * than half of it is left beyond one GPU's step: the rest hides behind the computing.
     */
    @Test
    void aStepOnTwoGpusOverlapsCommunicationWithTheBackwardPass() {
        double one = TimeOnlyEpoch.run(resnet50("v100", 1, 32, 25L << 20), null).secPerIteration();
        double serial = TimeOnlyEpoch.run(resnet50("v100", 2, 32, 0), null).secPerIteration();
        double bucketed =
                TimeOnlyEpoch.run(resnet50("v100", 2, 32, 25L << 20), null).secPerIteration();
        assertTrue(
                bucketed - one < 0.5 * (serial - one),
                "1 GPU " + one + " s, 2 GPUs summing after the backward pass " + serial + " s, in buckets " + bucketed);
    }

    @Test
    void aBatchPerGpuPastTheProfilesMemoryIsRefusedInOneLine() {
        UserError e = assertThrows(UserError.class, () -> TimeOnlyEpoch.run(resnet50("v100", 1, 256, 25L << 20), null));
        assertTrue(
                e.getMessage().startsWith("ResNet50 at 256 images per GPU needs more than ")
                        && e.getMessage().contains("a V100-SXM2 has 16.0 GiB; use a smaller --batch-per-gpu")
                        && !e.getMessage().contains("\n"),
                e.getMessage());
    }
}
