package org.multigpulab.core.train;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Model;

/**
 * A training run stopped between two steps, all it takes to resume it: what run it is ({@link Run}), where it
 * stands ({@link TrainingState}) and the model's state and then the optimizer's (the replicas agree, so one copy). {@link #SCHEMA} numbers the
 * layout of what is kept; a reader refuses a newer one.
 */
public record Checkpoint(Run run, TrainingState state, List<HostTensor> params) {

    /** The version of what a checkpoint holds; raised whenever a field is added, removed or changes meaning. */
    public static final int SCHEMA = 3;

    /** The oldest version a reader still takes: schema 2 lacked {@link Run#accumulate}, which was 1. */
    public static final int OLDEST_SCHEMA = 2;

    public Checkpoint {
        params = List.copyOf(params);
    }

    /**
     * What must be the same for a resumed run to continue the checkpointed one rather than start another: the model,
     * the global batch, the learning rate, the seed and whether to shuffle, the data (how many images of each set,
     * and a fingerprint of their bytes), the allreduce algorithm (its name, as {@code --allreduce} gives it), the
     * optimizer with its hyperparameters and the micro-batches each step accumulates. The number of devices and
     * processes, the ZeRO stage, the backend and where plots go may change.
     */
    public record Run(
            String model,
            int batchSize,
            float lr,
            long seed,
            boolean shuffle,
            int trainSamples,
            int testSamples,
            String data,
            String allReduce,
            String optimizer,
            int accumulate) {

        /** The run that {@code config} trains {@code model} on {@code data} with the allreduce named {@code allReduce}. */
        public static Run of(Model model, TrainConfig config, FashionMnist.Splits data, String allReduce) {
            return new Run(
                    model.name(),
                    config.batchSize(),
                    config.lr(),
                    config.seed(),
                    config.shuffle(),
                    data.train().count(),
                    data.test().count(),
                    fingerprint(data),
                    allReduce,
                    config.optimizer().toString(),
                    config.accumulate());
        }

        /**
         * How this run, checkpointed, differs from {@code resumed}, the run asked to continue it: one entry per field
         * that differs, in the order of the fields; empty when it may continue.
         */
        public List<Difference> differences(Run resumed) {
            List<Difference> d = new ArrayList<>();
            compare(d, "model", model, resumed.model);
            compare(d, "batch-size", batchSize, resumed.batchSize);
            compare(d, "lr", lr, resumed.lr);
            compare(d, "seed", seed, resumed.seed);
            compare(d, "shuffle", shuffle, resumed.shuffle);
            compare(d, "train-samples", trainSamples, resumed.trainSamples);
            compare(d, "test-samples", testSamples, resumed.testSamples);
            compare(d, "data", data, resumed.data);
            compare(d, "allreduce", allReduce, resumed.allReduce);
            // a checkpoint of schema 1 came before optimizers: its run's was the notebook's sgd
            compare(d, "optimizer", optimizer, resumed.optimizer);
            // a checkpoint of schema 2 came before accumulation: it took a step after every batch
            compare(d, "accumulate", Math.max(accumulate, 1), resumed.accumulate);
            return d;
        }

        private static void compare(List<Difference> d, String field, Object checkpointed, Object resumed) {
            if (!Objects.equals(checkpointed, resumed)) {
                d.add(new Difference(field, String.valueOf(checkpointed), String.valueOf(resumed)));
            }
        }
    }

    /** A field of {@link Run} with the checkpoint's value and the resumed run's. */
    public record Difference(String field, String checkpointed, String resumed) {}

    /**
     * The data's identity: the first 16 hex digits of the SHA-256 of the training set's labels and pixels, then
     * the test set's, so that another slice, order or copy of the images is told apart from the one trained on.
     */
    public static String fingerprint(FashionMnist.Splits data) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (Dataset set : List.of(data.train(), data.test())) {
                sha.update(set.labels());
                sha.update(set.pixels());
            }
            return "sha256:" + HexFormat.of().formatHex(sha.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
