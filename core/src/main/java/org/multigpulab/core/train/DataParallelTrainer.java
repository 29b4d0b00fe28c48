package org.multigpulab.core.train;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.autograd.Workspace;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.LeNet;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.parallel.GradientBuckets;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.parallel.Scatter;
import org.multigpulab.core.parallel.Shard;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.Kernels;
import org.multigpulab.device.Timeline;

/**
 * Data-parallel training of the seed's LeNet on any list of devices, step for step as the notebook's
 * {@code train_batch} and {@code train}: split the batch, forward and backward on each device, allreduce every
 * gradient, then the same SGD step on every replica. The devices may belong to any backend.
 *
 * <p>Owns one {@link Replica} per device; closing the trainer frees them. Not thread-safe.
 */
public final class DataParallelTrainer implements AutoCloseable {

    private final List<Device> devices;
    private final List<Replica> deviceParams;
    private final List<Workspace> workspaces;
    private final TrainConfig config;
    private final AllReduceAlgorithm allReduce;
    private double[] shares;
    private List<GradientBuckets.Bucket> buckets;
    private ProcessGroup group = ProcessGroup.SINGLE;
    private float[] hostGradients;
    private long crossRankNanos;
    private long crossRankCalls;
    private int epoch;
    private int batch;

    /** The seed's {@code device_params = [get_params(params, d) for d in devices]}. */
    public DataParallelTrainer(List<Device> devices, List<HostTensor> params, TrainConfig config) {
        this(devices, params, config, AllReduceAlgorithm.NAIVE);
    }

    /** A trainer whose gradients are summed by {@code allReduce} instead of the notebook's algorithm. */
    public DataParallelTrainer(List<Device> devices, List<HostTensor> params, TrainConfig config,
                               AllReduceAlgorithm allReduce) {
        if (devices.isEmpty()) {
            throw new IllegalArgumentException("training needs at least one device");
        }
        this.devices = List.copyOf(devices);
        this.deviceParams = devices.stream().map(d -> Replica.getParams(params, d)).toList();
        this.workspaces = deviceParams.stream().map(Replica::workspace).toList();
        this.config = config;
        this.allReduce = allReduce;
    }

    public List<Device> devices() {
        return devices;
    }

    public List<DeviceId> deviceIds() {
        return devices.stream().map(Device::id).toList();
    }

    /** The replicas, one per device, in device order. */
    public List<Replica> replicas() {
        return deviceParams;
    }

    /**
     * From now on, split each batch so that device {@code i} takes a share proportional to {@code weights[i]}
     * instead of an even one (for devices of unequal speed). The update is the same either way: the gradient
     * is summed over the whole batch.
     */
    public void setShares(double... weights) {
        if (weights.length != devices.size()) {
            throw new IllegalArgumentException(weights.length + " shares for " + devices.size() + " devices");
        }
        Scatter.shardSizes(devices.size(), weights);   // rejects shares that are not positive
        this.shares = weights.clone();
    }

    /**
     * From now on, train together with the other processes of {@code group}: each takes its rank's share of every
     * global batch, sums gradients over its own devices and then over the processes (hierarchically, as Horovod
     * and NCCL do), and applies the same update. All processes must start from the same parameters.
     */
    public void setProcessGroup(ProcessGroup group) {
        this.group = group;
    }

    /** Wall seconds spent summing gradients across processes, and how many times; 0 in one process. */
    public double crossRankSeconds() {
        return crossRankNanos / 1e9;
    }

    public long crossRankCalls() {
        return crossRankCalls;
    }

    /** What one mini-batch gave: summed loss and correct predictions over all shards. */
    public record BatchStats(double lossSum, int correct, int samples) {
    }

    /**
     * From now on, sum the gradients in buckets of at most {@code capBytes}, each as soon as it is ready on every
     * device, during the backward pass (PyTorch DDP's {@code bucket_cap_mb}); {@code 0} goes back to the
     * notebook's way, every parameter after the whole backward pass. The sums are the same either way; on
     * simulated GPUs the time is not, because sending overlaps computing.
     */
    public void setBucketBytes(long capBytes) {
        this.buckets = capBytes == 0 ? null : GradientBuckets.plan(deviceParams.getFirst(), capBytes);
    }

    /** The seed's {@code train_batch(X, y, device_params, devices, lr)}. */
    public BatchStats trainBatch(HostBatch batchData, float lr) {
        int[] perRank = Scatter.shardSizes(batchData.size(), group.size());
        int firstRow = 0;
        for (int r = 0; r < group.rank(); r++) {
            firstRow += perRank[r];
        }
        int mine = perRank[group.rank()];
        List<Shard> shards = Scatter.splitBatch(batchData, workspaces, shares == null
                ? Scatter.shardSizes(mine, devices.size())
                : Scatter.shardSizes(mine, shares), firstRow);
        List<Tape> tapes = new ArrayList<>();
        List<Tensor> losses = new ArrayList<>();
        List<Tensor> logits = new ArrayList<>();
        try {
            // Loss is calculated separately on each GPU
            for (int i = 0; i < devices.size(); i++) {
                try (Device.Range r = devices.get(i).range("forward")) {
                    Shard shard = shards.get(i);
                    Tape tape = Tape.training(workspaces.get(i));
                    tapes.add(tape);
                    Tensor x = Tensor.of(shard.x(), false, shard.size(), 1, LeNet.IMAGE_SIZE, LeNet.IMAGE_SIZE);
                    Tensor y = Tensor.of(shard.y(), false, shard.size());
                    logits.add(LeNet.forward(tape, x, deviceParams.get(i).params()));
                    losses.add(Ops.crossEntropySum(tape, logits.get(i), y));
                }
            }
            // Back propagation is performed separately on each GPU; with buckets, a bucket's gradients are summed
            // as soon as every GPU has them
            BucketedAllReduce bucketed = buckets == null ? null : new BucketedAllReduce();
            for (int i = 0; i < devices.size(); i++) {
                int device = i;
                try (Device.Range r = devices.get(i).range("backward")) {
                    tapes.get(i).backward(losses.get(i),
                            bucketed == null ? t -> { } : t -> bucketed.gradientReady(device, t));
                }
            }
            // Sum all gradients from each GPU and broadcast them to all GPUs
            if (bucketed == null) {
                for (int p = 0; p < deviceParams.getFirst().params().size(); p++) {
                    int param = p;
                    try (Ranges r = onAll("allreduce " + deviceParams.getFirst().names().get(p))) {
                        allReduce.allReduce(deviceParams.stream().map(x -> x.params().get(param).grad()).toList(), param);
                    }
                }
                crossRank(0, deviceParams.getFirst().gradients().length());
            } else {
                bucketed.checkAllSent();
            }
            // The model parameters are updated separately on each GPU; the gradient is summed over the full batch
            for (Replica replica : deviceParams) {
                try (Device.Range r = replica.device().range("sgd")) {
                    sgd(replica, lr, batchData.size());
                }
            }
            // Only now read back what the step gave, so that no GPU waited for the host during the step
            double lossSum = 0;
            int correct = 0;
            for (int i = 0; i < devices.size(); i++) {
                double shardLoss = sum(devices.get(i), losses.get(i).data(), shards.get(i).size());
                if (!Double.isFinite(shardLoss)) {
                    throw diverged("the loss", devices.get(i));
                }
                lossSum += shardLoss;
                correct += matches(tapes.get(i), logits.get(i), Tensor.of(shards.get(i).y(), false, shards.get(i).size()));
            }
            checkFiniteGradients(0);
            if (config.checkReplicas()) {
                checkReplicasIdentical();
            }
            return new BatchStats(lossSum, correct, mine);
        } finally {
            tapes.forEach(Tape::close);
            for (int i = 0; i < shards.size(); i++) {
                workspaces.get(i).giveBack(shards.get(i).x());
                workspaces.get(i).giveBack(shards.get(i).y());
            }
        }
    }

    /**
     * The buckets of one step: counts the gradients each bucket still waits for and sums a bucket over the
     * devices once it has them all, as DDP's reducer does.
     */
    private final class BucketedAllReduce {
        private final int[] waiting = new int[buckets.size()];
        private final boolean[][] ready = new boolean[devices.size()][deviceParams.getFirst().params().size()];
        private final int[] bucketOf = new int[deviceParams.getFirst().params().size()];

        BucketedAllReduce() {
            for (GradientBuckets.Bucket b : buckets) {
                waiting[b.index()] = b.params().size() * devices.size();
                b.params().forEach(p -> bucketOf[p] = b.index());
            }
        }

        void gradientReady(int device, Tensor parameter) {
            int p = deviceParams.get(device).params().indexOf(parameter);
            if (ready[device][p]) {
                throw new IllegalStateException(deviceParams.get(device).names().get(p) + " received two gradient"
                        + " contributions in one backward pass; bucketed allreduce needs every parameter used once");
            }
            ready[device][p] = true;
            GradientBuckets.Bucket b = buckets.get(bucketOf[p]);
            if (--waiting[b.index()] == 0) {
                try (Ranges r = onAll("allreduce bucket " + b.index())) {
                    allReduce.allReduce(deviceParams.stream()
                            .map(x -> x.gradients().slice(b.offset(), b.length())).toList(), b.index());
                }
                crossRank(b.offset(), b.length());
            }
        }

        void checkAllSent() {
            for (int w : waiting) {
                if (w != 0) {
                    throw new IllegalStateException("the backward pass left a bucket of gradients incomplete");
                }
            }
        }
    }

    /**
     * Sums gradients {@code [offset, offset + length)}, already summed over this process's devices, over the
     * processes: from device 0 to the host, across the group, and back to every device.
     */
    private void crossRank(int offset, int length) {
        if (group.size() == 1) {
            return;
        }
        long start = System.nanoTime();
        try (Ranges r = onAll("allreduce across " + group.size() + " processes")) {
            Replica first = deviceParams.getFirst();
            if (hostGradients == null) {
                hostGradients = new float[first.gradients().length()];
            }
            first.device().download(first.gradients().slice(offset, length), hostGradients, offset);
            group.allReduce(hostGradients, offset, length);
            for (Replica replica : deviceParams) {
                replica.device().upload(hostGradients, offset, replica.gradients().slice(offset, length));
            }
        }
        crossRankNanos += System.nanoTime() - start;
        crossRankCalls++;
    }

    /** A named range open on every device, for work that involves them all. */
    private Ranges onAll(String name) {
        return new Ranges(devices.stream().map(d -> d.range(name)).toList());
    }

    private record Ranges(List<Device.Range> open) implements AutoCloseable {
        @Override
        public void close() {
            open.forEach(Device.Range::close);
        }
    }

    /** The seed's {@code sgd(params, lr, batch_size)}: {@code p -= lr * p.grad / batch_size}. */
    private static void sgd(Replica replica, float lr, int batchSize) {
        Kernels k = replica.device().kernels();
        for (Tensor p : replica.params()) {
            k.axpy(-lr / batchSize, p.grad(), p.data(), p.size());
        }
    }

    /**
     * The seed's {@code train(num_gpus, batch_size, lr)}: epochs of shuffled mini-batches, each epoch's training
     * loop timed with the devices synchronized, then the test accuracy on device 0.
     */
    public TrainResult train(FashionMnist.Splits data, TrainingListener listener) {
        checkBatchesSplit(data.train().count());
        int batches = BatchIterator.batchesPerEpoch(data.train().count(), config.batchSize());
        listener.onStart(new TrainingListener.Start(deviceIds(), config.epochs(), batches,
                data.train().count(), data.test().count()));
        Random shuffle = new Random(config.seed());
        List<TrainingListener.EpochDone> epochs = new ArrayList<>();
        for (epoch = 1; epoch <= config.epochs(); epoch++) {
            double lossSum = 0;
            long correct = 0;
            double simStart = simulatedNow();
            long start = System.nanoTime();
            BatchIterator it = new BatchIterator(data.train(), config.batchSize(), config.shuffle() ? shuffle : null);
            for (batch = 1; it.hasNext(); batch++) {
                BatchStats stats = trainBatch(it.next(), config.lr());
                devices.forEach(Device::synchronize);
                lossSum += stats.lossSum();
                correct += stats.correct();
                listener.onBatch(new TrainingListener.BatchDone(epoch, batch, batches, stats.samples(),
                        stats.lossSum(), stats.correct()));
            }
            double wallSec = (System.nanoTime() - start) / 1e9;
            double simSec = simulatedNow() - simStart;
            double[] sums = {lossSum, correct};
            group.allReduce(sums);
            lossSum = sums[0];
            correct = Math.round(sums[1]);
            // Verify the model on GPU 0
            double testAcc = evaluateAccuracy(data.test());
            TrainingListener.EpochDone done = new TrainingListener.EpochDone(epoch, config.epochs(),
                    lossSum / data.train().count(), (double) correct / data.train().count(), testAcc, wallSec, simSec);
            epochs.add(done);
            listener.onEpoch(done);
        }
        return new TrainResult(deviceIds(), List.copyOf(epochs), timeline().map(Timeline::description).orElse(null));
    }

    /** The simulated time of the devices, when a cost model times them (backend {@code sim}). */
    public Optional<Timeline> timeline() {
        return devices.getFirst().timeline();
    }

    private double simulatedNow() {
        return timeline().map(Timeline::now).orElse(Double.NaN);
    }

    /** The seed's {@code evaluate_accuracy_gpu}: the share of {@code data} that device 0's replica classifies right. */
    public double evaluateAccuracy(Dataset data) {
        return evaluateAccuracy(data, 0);
    }

    /**
     * The share of {@code data} that the replica on device {@code index} classifies right. With several
     * processes each classifies every size-th batch and the counts are summed.
     */
    public double evaluateAccuracy(Dataset data, int index) {
        Replica replica = deviceParams.get(index);
        Workspace ws = replica.workspace();
        long correct = 0;
        BatchIterator it = new BatchIterator(data, config.batchSize());
        for (int i = 0; it.hasNext(); i++) {
            HostBatch b = it.next();
            if (i % group.size() != group.rank()) {
                continue;
            }
            try (Tape tape = Tape.inference(ws)) {
                Tensor x = tape.newTensor(false, b.size(), 1, data.rows(), data.cols());
                Tensor y = tape.newTensor(false, b.size());
                replica.device().upload(b.x(), 0, x.data());
                replica.device().upload(b.y(), 0, y.data());
                correct += matches(tape, LeNet.forward(tape, x, replica.params()), y);
            }
        }
        double[] sum = {correct};
        group.allReduce(sum);
        return sum[0] / data.count();
    }

    /** The current parameters, read from device 0. */
    public List<HostTensor> parameters() {
        return deviceParams.getFirst().download();
    }

    private void checkBatchesSplit(int samples) {
        int k = devices.size() * group.size();
        if (config.batchSize() < k) {
            throw new IllegalArgumentException("a batch of " + config.batchSize() + " cannot be split over " + k
                    + " devices" + (group.size() > 1 ? " (" + devices.size() + " in each of " + group.size()
                    + " processes)" : "") + "; use --batch-size " + k + " or more");
        }
        int last = samples % config.batchSize();
        if (last != 0 && last < k) {
            throw new IllegalArgumentException("the last batch of an epoch would hold " + last + " samples ("
                    + samples + " % " + config.batchSize() + "), fewer than the " + k
                    + " devices; change --train-samples or --batch-size so that it holds at least " + k);
        }
    }

    private static int matches(Tape tape, Tensor logits, Tensor labels) {
        Tensor count = tape.newTensor(false, 1);
        Device device = logits.device();
        device.kernels().argmaxMatches(logits.data(), labels.data(), count.data(), logits.dim(0), logits.dim(1));
        return Math.round(device.download(count.data())[0]);
    }

    private static double sum(Device device, Buffer values, int n) {
        float[] host = new float[n];
        device.download(values.slice(0, n), host, 0);
        double s = 0;
        for (float v : host) {
            s += v;
        }
        return s;
    }

    /**
     * One squared norm per parameter (a 1×n by n×1 product on the device), downloaded together and checked. Run
     * on the summed gradients, so a non-finite one anywhere shows on every device.
     */
    private void checkFiniteGradients(int replicaIndex) {
        Replica replica = deviceParams.get(replicaIndex);
        List<Tensor> params = replica.params();
        Buffer norms = replica.workspace().take(params.size());
        try {
            for (int p = 0; p < params.size(); p++) {
                Tensor t = params.get(p);
                replica.device().kernels().gemm(false, true, 1, 1, t.size(), 1f, t.grad(), t.grad(), 0f,
                        norms.slice(p, 1));
            }
            float[] host = replica.device().download(norms);
            for (int p = 0; p < params.size(); p++) {
                if (!Float.isFinite(host[p])) {
                    throw diverged("the gradient of " + replica.names().get(p), replica.device());
                }
            }
        } finally {
            replica.workspace().giveBack(norms);
        }
    }

    private TrainingDivergedException diverged(String what, Device device) {
        return new TrainingDivergedException(what + " became NaN or infinite in epoch " + epoch + ", batch " + batch
                + " on " + device.id() + "; training stopped. Try a smaller --lr (now " + config.lr() + ")");
    }

    private void checkReplicasIdentical() {
        List<HostTensor> reference = deviceParams.getFirst().download();
        for (Replica replica : deviceParams.subList(1, deviceParams.size())) {
            List<HostTensor> other = replica.download();
            for (int p = 0; p < reference.size(); p++) {
                if (!Arrays.equals(reference.get(p).values(), other.get(p).values())) {
                    throw new IllegalStateException("after epoch " + epoch + ", batch " + batch + " the replica on "
                            + replica.device().id() + " differs from " + devices.getFirst().id() + " in "
                            + reference.get(p).name() + ": the allreduce did not reach every replica");
                }
            }
        }
    }

    @Override
    public void close() {
        deviceParams.forEach(Replica::close);
    }
}
