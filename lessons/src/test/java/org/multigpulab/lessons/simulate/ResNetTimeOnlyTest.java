package org.multigpulab.lessons.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.multigpulab.core.model.TorchvisionResNet;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.lessons.errors.UserError;

/** torchvision's ResNet-50 timed without computing: DDP's buckets overlap the backward pass, and memory is checked. */
class ResNetTimeOnlyTest {

    private static TimeOnlyEpoch.Setup resnet50(String profile, int gpus, int batchPerGpu, long bucketBytes) {
        return resnet50(profile, gpus, batchPerGpu, bucketBytes, 1);
    }

    private static TimeOnlyEpoch.Setup resnet50(
            String profile, int gpus, int batchPerGpu, long bucketBytes, int steps) {
        return new TimeOnlyEpoch.Setup(
                        gpus,
                        1,
                        profile,
                        null,
                        null,
                        TorchvisionResNet.resnet50(),
                        batchPerGpu * gpus,
                        steps * batchPerGpu * gpus,
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

    /**
     * Two steps on 2 V100s: every bucket but the last (the first layers', complete only when the backward pass ends)
     * is summed behind the backward pass, so a step takes one GPU's step and the last bucket's allreduce, within 1 %
     * (DDP's broadcast of BatchNorm's buffers before each forward pass, a bucket's reduction kernels). The second step
     * is timed too, as its gradients are written while the first step's buffers still hold their times.
     */
    @Test
    void twoGpusTakeOneGpusStepAndTheLastBucketsAllreduce(@TempDir Path dir) throws Exception {
        double one =
                TimeOnlyEpoch.run(resnet50("v100", 1, 32, 25L << 20, 2), null).secPerIteration();
        Path trace = dir.resolve("trace.json");
        double two =
                TimeOnlyEpoch.run(resnet50("v100", 2, 32, 25L << 20, 2), trace).secPerIteration();
        // the sim's range of each bucket's allreduce, on sim:0: the last bucket's is the largest index's
        double lastBucket = 0;
        int last = -1;
        for (JsonElement e : JsonParser.parseString(Files.readString(trace))
                .getAsJsonObject()
                .getAsJsonArray("traceEvents")) {
            JsonObject event = e.getAsJsonObject();
            String name = event.get("name").getAsString();
            if (event.get("pid").getAsInt() == 0 && name.startsWith("allreduce bucket ")) {
                int index = Integer.parseInt(name.substring("allreduce bucket ".length()));
                if (index >= last) {
                    last = index;
                    lastBucket = event.get("dur").getAsDouble() / 1e6;
                }
            }
        }
        assertTrue(last > 0, "buckets in the trace: " + last);
        assertEquals(
                one + lastBucket,
                two,
                0.01 * one,
                "1 GPU " + one + " s/step, the last bucket's allreduce " + lastBucket + " s, 2 GPUs " + two);
    }

    /**
     * 64 images per GPU fit a 16 GB V100, as they do in PyTorch (about 10 GB there): the backward pass holds a few
     * activation gradients at a time, not one for every activation of the forward pass.
     */
    @Test
    void sixtyFourImagesFitAV100() {
        assertTrue(TimeOnlyEpoch.run(resnet50("v100", 1, 64, 25L << 20), null).secPerIteration() > 0);
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
