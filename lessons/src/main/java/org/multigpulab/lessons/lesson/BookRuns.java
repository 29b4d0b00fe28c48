package org.multigpulab.lessons.lesson;

import java.util.List;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.ReplicaUpdate;
import org.multigpulab.lessons.simulate.TimeOnlyEpoch;

/**
 * The settings of the book's own published runs, as {@code ./lab simulate} simulates them: V100-SXM2s, all 60,000
 * images, the notebook's host program on AWS p3's processor; §12.5's LeNet at a global batch of 256 on 1 and 2
 * GPUs, §12.6's ResNet-18 at 256 per GPU with {@code nn.DataParallel}'s update.
 */
public final class BookRuns {

    /** The book's builds print no processor: AWS p3's is the guess ({@code HostCpu} in the sim backend). */
    public static final String HOST_CPU = "xeon-e5-2686v4";

    private BookRuns() {}

    /** One of the book's runs: {@code model} on {@code gpus} GPUs at global batch {@code batchSize}. */
    public record Setting(String model, int gpus, int batchSize) {

        /** The epoch to simulate. */
        public TimeOnlyEpoch.Setup setup() {
            return new TimeOnlyEpoch.Setup(
                    gpus,
                    1,
                    "v100",
                    null,
                    null,
                    Model.named(model),
                    batchSize,
                    60_000,
                    AllReduceAlgorithm.NAIVE,
                    0,
                    true,
                    HOST_CPU,
                    model.equals("resnet18") ? ReplicaUpdate.FROM_DEVICE_0 : ReplicaUpdate.EACH,
                    false);
        }

        /** The book's published seconds per epoch of this setting. */
        public PublishedRuns.Range published() {
            return PublishedRuns.forSetting(model, gpus, batchSize).orElseThrow();
        }
    }

    /** §12.5 on 1 and 2 GPUs, §12.6 on 1 and 2. */
    public static final List<Setting> ALL = List.of(
            new Setting("lenet", 1, 256),
            new Setting("lenet", 2, 256),
            new Setting("resnet18", 1, 256),
            new Setting("resnet18", 2, 512));
}
