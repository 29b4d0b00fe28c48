package org.multigpulab.core.train;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.optim.Optimizer;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.BatchNormStatistics;
import org.multigpulab.core.parallel.ReplicaUpdate;
import org.multigpulab.core.parallel.ZeroStage;

/**
 * Every option of a training run, fixed before it starts: the notebook's {@code num_epochs}, {@code batch_size}
 * and {@code lr}; the random seed of the shuffling, and whether to shuffle at all; whether to check after every
 * step that all replicas hold the same parameters (a debug check, on in tests); how the gradients are summed over
 * the devices ({@code allReduce}), and whether in buckets of at most {@code bucketBytes} while the backward pass
 * runs (PyTorch DDP's {@code bucket_cap_mb}; 0 sums every parameter after it, as the notebook does); the
 * processes that train together ({@link ProcessGroup#SINGLE} for one, as the notebook); and how each batch is
 * split over this process's devices: {@code shares} empty splits as {@code torch.chunk}, else device i takes a
 * part of every batch in proportion to {@code shares.get(i)} (its measured speed, say); the optimizer whose rule
 * updates the parameters (the notebook's plain SGD by default); how many micro-batches of {@code batchSize} one
 * optimizer step accumulates ({@code accumulate}, 1 as the notebook); which of the model's state the devices
 * shard among themselves instead of each holding all of it ({@code zero}, ZeRO's stages); over which devices
 * BatchNorm takes its statistics ({@code batchNorm}: each its own shard, or all of them); and where the parameters
 * are updated ({@code replicaUpdate}: on every replica, or on device 0 and broadcast, as {@code nn.DataParallel}).
 *
 * <p>Immutable: the {@code with} methods return a changed copy. The constructor rejects values that cannot train.
 */
public record TrainConfig(
        int epochs,
        int batchSize,
        float lr,
        long seed,
        boolean shuffle,
        boolean checkReplicas,
        AllReduceAlgorithm allReduce,
        long bucketBytes,
        ProcessGroup processGroup,
        List<Double> shares,
        Optimizer optimizer,
        int accumulate,
        ZeroStage zero,
        BatchNormStatistics batchNorm,
        ReplicaUpdate replicaUpdate) {

    /**
     * DDP's default {@code bucket_cap_mb}, 25 MiB: the size of ZeRO's buckets and units (stages 2 and 3) when no
     * bucket size is given.
     */
    public static final long DDP_BUCKET_BYTES = 25L << 20;

    public TrainConfig {
        if (epochs <= 0) {
            throw new IllegalArgumentException("epochs must be 1 or more, not " + epochs);
        }
        if (batchSize <= 0) {
            throw new IllegalArgumentException("batch size must be 1 or more, not " + batchSize);
        }
        if (!Float.isFinite(lr) || lr <= 0) {
            throw new IllegalArgumentException("learning rate must be a positive finite number, not " + lr);
        }
        if (bucketBytes < 0) {
            throw new IllegalArgumentException("a bucket must hold 0 bytes (no buckets) or more, not " + bucketBytes);
        }
        Objects.requireNonNull(allReduce, "allReduce");
        Objects.requireNonNull(processGroup, "processGroup");
        Objects.requireNonNull(optimizer, "optimizer");
        Objects.requireNonNull(zero, "zero");
        Objects.requireNonNull(batchNorm, "batchNorm");
        Objects.requireNonNull(replicaUpdate, "replicaUpdate");
        if (replicaUpdate == ReplicaUpdate.FROM_DEVICE_0
                && (zero != ZeroStage.NONE || bucketBytes > 0 || processGroup.size() > 1)) {
            throw new IllegalArgumentException("nn.DataParallel's update on device 0 runs in one process, without"
                    + " buckets or ZeRO; train with one of them or the other");
        }
        if (accumulate <= 0) {
            throw new IllegalArgumentException(
                    "gradients must be accumulated over 1 micro-batch (every step) or more, not " + accumulate);
        }
        shares = List.copyOf(shares);
        if (!shares.stream().allMatch(w -> w > 0 && Double.isFinite(w))) {
            throw new IllegalArgumentException("shares must be positive and finite, not " + shares);
        }
    }

    /** The recipe given, the gradients summed as the notebook sums them (naive, every parameter), in one process. */
    public TrainConfig(int epochs, int batchSize, float lr, long seed, boolean shuffle, boolean checkReplicas) {
        this(
                epochs,
                batchSize,
                lr,
                seed,
                shuffle,
                checkReplicas,
                AllReduceAlgorithm.NAIVE,
                0,
                ProcessGroup.SINGLE,
                List.of(),
                Optimizer.NOTEBOOK_SGD,
                1,
                ZeroStage.NONE,
                BatchNormStatistics.LOCAL,
                ReplicaUpdate.EACH);
    }

    /** The notebook's {@code train(num_gpus, batch_size=256, lr=0.2)} with 5 epochs, shuffled with random seed 1. */
    public static TrainConfig notebook() {
        return new TrainConfig(5, 256, 0.2f, 1, true, false);
    }

    public TrainConfig withEpochs(int epochs) {
        return with(c -> c.epochs = epochs);
    }

    public TrainConfig withBatchSize(int batchSize) {
        return with(c -> c.batchSize = batchSize);
    }

    public TrainConfig withLr(float lr) {
        return with(c -> c.lr = lr);
    }

    public TrainConfig withSeed(long seed) {
        return with(c -> c.seed = seed);
    }

    public TrainConfig withShuffle(boolean shuffle) {
        return with(c -> c.shuffle = shuffle);
    }

    public TrainConfig withCheckReplicas(boolean checkReplicas) {
        return with(c -> c.checkReplicas = checkReplicas);
    }

    public TrainConfig withAllReduce(AllReduceAlgorithm allReduce) {
        return with(c -> c.allReduce = allReduce);
    }

    /** Buckets of at most {@code bucketBytes} while the backward pass runs; 0 for none. */
    public TrainConfig withBucketBytes(long bucketBytes) {
        return with(c -> c.bucketBytes = bucketBytes);
    }

    /**
     * Training together with the other processes of {@code processGroup}: each takes its rank's share of every
     * global batch, and all must start from the same parameters.
     */
    public TrainConfig withProcessGroup(ProcessGroup processGroup) {
        return with(c -> c.processGroup = processGroup);
    }

    /**
     * Device i takes a part of every batch in proportion to {@code shares[i]}, one share per device, at least one
     * row each (a batch with fewer rows than devices is split as {@code torch.chunk}); none given: as {@code
     * torch.chunk}.
     */
    public TrainConfig withShares(double... shares) {
        return with(c -> c.shares = Arrays.stream(shares).boxed().toList());
    }

    /** The parameters updated by {@code optimizer}'s rule (the notebook's plain SGD unless changed). */
    public TrainConfig withOptimizer(Optimizer optimizer) {
        return with(c -> c.optimizer = optimizer);
    }

    /**
     * {@code accumulate} micro-batches of {@link #batchSize} per optimizer step, the gradients summed over the
     * devices only after the last of them (DDP's {@code no_sync}); 1 steps after every batch.
     */
    public TrainConfig withAccumulate(int accumulate) {
        return with(c -> c.accumulate = accumulate);
    }

    /** What the devices shard rather than replicate: {@link ZeroStage#NONE}, as the notebook, unless changed. */
    public TrainConfig withZero(ZeroStage zero) {
        return with(c -> c.zero = zero);
    }

    /** BatchNorm's statistics over each device's shard ({@link BatchNormStatistics#LOCAL}, by default) or all of them. */
    public TrainConfig withBatchNorm(BatchNormStatistics batchNorm) {
        return with(c -> c.batchNorm = batchNorm);
    }

    /** Where the parameters are updated: {@link ReplicaUpdate#EACH} replica, as the notebook, unless changed. */
    public TrainConfig withReplicaUpdate(ReplicaUpdate replicaUpdate) {
        return with(c -> c.replicaUpdate = replicaUpdate);
    }

    /** This config with what {@code change} sets in a copy of its components. */
    private TrainConfig with(Consumer<Components> change) {
        Components c = new Components(this);
        change.accept(c);
        return new TrainConfig(
                c.epochs,
                c.batchSize,
                c.lr,
                c.seed,
                c.shuffle,
                c.checkReplicas,
                c.allReduce,
                c.bucketBytes,
                c.processGroup,
                c.shares,
                c.optimizer,
                c.accumulate,
                c.zero,
                c.batchNorm,
                c.replicaUpdate);
    }

    /** The components of a config, to change some of them. */
    private static final class Components {
        int epochs;
        int batchSize;
        float lr;
        long seed;
        boolean shuffle;
        boolean checkReplicas;
        AllReduceAlgorithm allReduce;
        long bucketBytes;
        ProcessGroup processGroup;
        List<Double> shares;
        Optimizer optimizer;
        int accumulate;
        ZeroStage zero;
        BatchNormStatistics batchNorm;
        ReplicaUpdate replicaUpdate;

        Components(TrainConfig c) {
            epochs = c.epochs;
            batchSize = c.batchSize;
            lr = c.lr;
            seed = c.seed;
            shuffle = c.shuffle;
            checkReplicas = c.checkReplicas;
            allReduce = c.allReduce;
            bucketBytes = c.bucketBytes;
            processGroup = c.processGroup;
            shares = c.shares;
            optimizer = c.optimizer;
            accumulate = c.accumulate;
            zero = c.zero;
            batchNorm = c.batchNorm;
            replicaUpdate = c.replicaUpdate;
        }
    }
}
