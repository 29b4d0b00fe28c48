package org.multigpulab.core.train;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.multigpulab.core.autograd.BatchStatistics;
import org.multigpulab.core.autograd.Tape;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.data.BatchIterator;
import org.multigpulab.core.data.Dataset;
import org.multigpulab.core.data.FashionMnist;
import org.multigpulab.core.data.HostBatch;
import org.multigpulab.core.data.ImageShape;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.model.Mode;
import org.multigpulab.core.model.Model;
import org.multigpulab.core.optim.OptimizerState;
import org.multigpulab.core.parallel.BatchNormStatistics;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.parallel.Scatter;
import org.multigpulab.core.parallel.Shard;
import org.multigpulab.core.parallel.SynchronizedStatistics;
import org.multigpulab.core.train.StepChecks.Position;
import org.multigpulab.device.Device;
import org.multigpulab.device.DeviceId;
import org.multigpulab.device.StepPart;
import org.multigpulab.device.Timeline;

/**
 * Data-parallel training of a {@link Model} (the notebook's LeNet, or another) on any list of devices, step for
 * step as the notebook's {@code train_batch} and {@code train}: split the batch, forward and backward on each
 * device, sum every gradient over the devices (and the processes), then the same SGD step on every replica. The
 * devices may belong to any backend. Every option comes in one {@link TrainConfig}, fixed for the trainer's life.
 *
 * <p>Owns one {@link Replica} per device; closing the trainer frees them. Not thread-safe.
 */
public final class DataParallelTrainer implements AutoCloseable {

    private final List<Device> devices;
    private final Model model;
    private final List<Replica> deviceParams;
    private final TrainConfig config;
    /** What each device holds of parameters, gradients and the optimizer's state, and how they are kept right. */
    private final ModelState modelState;
    /** With synchronized BatchNorm, the devices' passes in lockstep and their statistics' sums; else null. */
    private final SynchronizedStatistics synchronizedStatistics;

    /**
     * The notebook's {@code device_params = [get_params(params, d) for d in devices]} for {@code model}, whose state
     * (its parameters, then its buffers) {@code state} must be, by name and shape, and the gradient synchronisation
     * {@code config} chooses. As DDP's constructor does, it starts every process from rank 0's state.
     */
    public DataParallelTrainer(List<Device> devices, Model model, List<HostTensor> state, TrainConfig config) {
        if (devices.isEmpty()) {
            throw new IllegalArgumentException("training needs at least one device");
        }
        checkFits(model, state);
        List<HostTensor> start = fromRankZero(model, state, config.processGroup());
        List<HostTensor> params = start.subList(0, model.parameters().size());
        List<HostTensor> buffers = start.subList(params.size(), start.size());
        if (!config.shares().isEmpty() && config.shares().size() != devices.size()) {
            throw new IllegalArgumentException(
                    "shares " + config.shares() + " name " + config.shares().size() + " devices; training has "
                            + devices.size() + ": give one share per device");
        }
        this.devices = List.copyOf(devices);
        this.model = model;
        this.deviceParams = devices.stream()
                .map(d -> Replica.getState(params, buffers, d, config.zero()))
                .toList();
        this.config = config;
        this.modelState = new ModelState(deviceParams, config, params);
        this.synchronizedStatistics = config.batchNorm() == BatchNormStatistics.SYNC
                        && !model.buffers().isEmpty()
                ? new SynchronizedStatistics(devices, config.processGroup())
                : null;
    }

    private static void checkFits(Model model, List<HostTensor> state) {
        List<String> expected = model.stateSpecs();
        List<String> given =
                state.stream().map(p -> p.name() + " " + p.shapeText()).toList();
        if (!expected.equals(given)) {
            throw new IllegalArgumentException("this state is not " + model.name() + "'s: it has " + expected
                    + " (parameters, then buffers), this is " + given);
        }
    }

    /**
     * Rank 0's state on every rank, in one broadcast, as DDP's constructor makes, so that processes that drew their
     * start apart begin the same; counters take their kind from the model. In one process, {@code state} itself.
     */
    private static List<HostTensor> fromRankZero(Model model, List<HostTensor> state, ProcessGroup group) {
        float[] flat = new float[state.stream().mapToInt(HostTensor::size).sum()];
        int offset = 0;
        for (HostTensor t : state) {
            System.arraycopy(t.values(), 0, flat, offset, t.size());
            offset += t.size();
        }
        if (group.size() > 1) {
            group.broadcast(flat, 0);
        }
        int parameters = model.parameters().size();
        List<HostTensor> same = new ArrayList<>();
        offset = 0;
        for (int i = 0; i < state.size(); i++) {
            HostTensor t = state.get(i);
            boolean integral =
                    i >= parameters && model.buffers().get(i - parameters).integral();
            same.add(
                    new HostTensor(t.name(), t.shape(), Arrays.copyOfRange(flat, offset, offset + t.size()), integral));
            offset += t.size();
        }
        return List.copyOf(same);
    }

    public Model model() {
        return model;
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

    /** Wall seconds spent all-reducing gradients across processes; 0 in one process. */
    public double crossRankSeconds() {
        return modelState.crossProcessSeconds();
    }

    /** How many times gradients were all-reduced across processes; 0 in one process. */
    public long crossRankCalls() {
        return modelState.crossProcessCalls();
    }

    /** What each device holds between steps, by kind, and its measured peak, in device order. */
    public List<DeviceMemory> memory() {
        return IntStream.range(0, deviceParams.size())
                .mapToObj(modelState::memory)
                .toList();
    }

    /** What one mini-batch (or step) gave: summed loss and correct predictions over this process's shards. */
    public record BatchStats(double lossSum, int correct, int samples) {

        BatchStats plus(BatchStats other) {
            return new BatchStats(lossSum + other.lossSum, correct + other.correct, samples + other.samples);
        }
    }

    /**
     * The notebook's {@code train_batch(X, y, device_params, devices, lr)}, for batch {@code batch.number()} of
     * epoch {@code epoch}, the place an error names.
     */
    public BatchStats trainBatch(HostBatch batch, float lr, int epoch) {
        return trainStep(List.of(batch).iterator(), lr, epoch);
    }

    /**
     * One optimizer step over the micro-batches {@code microBatches} gives, of epoch {@code epoch}: each one's
     * forward and backward passes on every device, the gradients adding up on each device, and summed over the
     * devices only after the last one (DDP's {@code no_sync} on the others); then the update, with the gradient
     * divided by all the step's images. With one micro-batch, the notebook's {@code train_batch}. A micro-batch is
     * taken when the one before is done with (a {@link BatchIterator} reuses its arrays).
     */
    public BatchStats trainStep(Iterator<HostBatch> microBatches, float lr, int epoch) {
        int images = 0;
        BatchStats earlier = new BatchStats(0, 0, 0);
        List<DeviceStep> steps = List.of();
        Position at = null;
        try {
            for (boolean first = true; ; first = false) {
                HostBatch batch = microBatches.next();
                requireInput(batch.shape());
                images += batch.size();
                at = new Position(epoch, batch.number());
                boolean synchronizing = !microBatches.hasNext();
                if (synchronizing) {
                    // As DDP with broadcast_buffers, in the forward pass whose gradients it will sum: every
                    // replica's buffers are device 0's (rank 0's) before it
                    broadcastBuffers(at);
                }
                steps = splitBatch(batch);
                // Loss is calculated separately on each GPU
                modelState.beforeForward();
                forwardPasses(steps, at);
                modelState.afterForward();
                // Back propagation is performed separately on each GPU; in buckets, summing starts meanwhile
                if (synchronizing) {
                    modelState.prepareForBackward();
                }
                backwardPasses(steps, synchronizing, !first);
                if (synchronizing) {
                    break;
                }
                earlier = earlier.plus(lossAndMatches(steps, at, lr));
                steps.forEach(DeviceStep::close);
                steps = List.of();
            }
            // Sum all gradients from each GPU and broadcast them to all GPUs (or leave each its chunk of the sum)
            modelState.synchronize();
            // The model parameters are updated separately on each GPU; the gradient is summed over the full batch
            modelState.step(lr, images);
            // Only now read back what the last micro-batch gave, so that no GPU waited for the host during the step
            BatchStats last = lossAndMatches(steps, at, lr);
            modelState.checkFiniteGradients(at, lr);
            if (config.checkReplicas() && modelState.replicated()) {
                StepChecks.replicasIdentical(deviceParams, at);
            }
            return earlier.plus(last);
        } finally {
            steps.forEach(DeviceStep::close);
        }
    }

    /**
     * Every device's backward pass, adding to the gradients of the step's earlier micro-batches when
     * {@code accumulate}; when {@code synchronizing}, each contribution to a gradient is told to the model state,
     * which sums the gradients over the devices (in buckets, during the passes). One device's pass after another,
     * or, where the model state needs it, interleaved one recorded op at a time as real GPUs run them at once.
     */
    private void backwardPasses(List<DeviceStep> steps, boolean synchronizing, boolean accumulate) {
        modelState.beforeBackward();
        if (synchronizedStatistics != null) {
            // BatchNorm's sums meet across the devices in the backward pass too
            synchronizedStatistics.run(i -> {
                Consumer<Tensor> hook = synchronizing ? modelState.hook(i) : t -> {};
                if (!modelState.interleavesBackward()) {
                    steps.get(i).backward(hook, accumulate);
                    return;
                }
                try (DeviceStep.Pass pass = steps.get(i).startBackward(hook, accumulate)) {
                    while (pass.step()) {
                        synchronizedStatistics.yieldTurn(i);
                    }
                }
            });
        } else if (!modelState.interleavesBackward()) {
            for (int i = 0; i < steps.size(); i++) {
                steps.get(i).backward(synchronizing ? modelState.hook(i) : t -> {}, accumulate);
            }
        } else {
            List<DeviceStep.Pass> passes = new ArrayList<>();
            try {
                for (int i = 0; i < steps.size(); i++) {
                    passes.add(steps.get(i).startBackward(synchronizing ? modelState.hook(i) : t -> {}, accumulate));
                }
                for (boolean more = true; more; ) {
                    more = false;
                    for (DeviceStep.Pass pass : passes) {
                        more |= pass.step();
                    }
                }
            } finally {
                passes.forEach(DeviceStep.Pass::close);
            }
        }
        modelState.afterBackward();
    }

    /**
     * Every device's forward pass and loss: one after another, each BatchNorm over its device's shard; with
     * synchronized BatchNorm side by side in lockstep, each over the whole global batch, which every device must then
     * have rows of.
     */
    private void forwardPasses(List<DeviceStep> steps, Position at) {
        if (synchronizedStatistics == null) {
            steps.forEach(step -> step.forwardAndLoss(model, BatchStatistics.LOCAL));
            return;
        }
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i).samples() == 0) {
                throw new IllegalArgumentException("batch " + at.batch() + " of epoch " + at.epoch() + " leaves "
                        + steps.get(i).device().id() + " no images, and synchronized BatchNorm needs every device's:"
                        + " train with a batch of at least as many images as devices, or with --batchnorm local");
            }
        }
        synchronizedStatistics.run(i -> steps.get(i).forwardAndLoss(model, synchronizedStatistics.of(i)));
    }

    /** Refuses images of another shape than the model takes, naming both. */
    private void requireInput(ImageShape images) {
        if (!images.equals(model.input())) {
            throw new IllegalArgumentException(model.name() + " takes images of " + model.input() + ", these are "
                    + images + ": train it on a data set of its images");
        }
    }

    /**
     * Device 0's buffers copied to the other devices, after rank 0's were broadcast to the other processes; with the
     * replica checks on, every replica's buffers then compared with device 0's. Nothing for a model without buffers.
     */
    private void broadcastBuffers(Position at) {
        Replica first = deviceParams.getFirst();
        if (first.buffers().isEmpty()) {
            return;
        }
        ProcessGroup group = config.processGroup();
        if (group.size() > 1) {
            for (Tensor b : first.buffers()) {
                float[] values = first.device().download(b.data());
                group.broadcast(values, 0);
                first.device().upload(values, 0, b.data());
            }
        }
        // all buffers at once, as DDP broadcasts them coalesced (torch/nn/parallel/distributed.py, _sync_buffers)
        try (Device.Range r = first.device().range(new StepPart.BufferBroadcast())) {
            for (Replica other : deviceParams.subList(1, deviceParams.size())) {
                other.device().copyFromPeer(first.bufferValues(), other.bufferValues());
            }
        }
        if (config.checkReplicas()) {
            StepChecks.buffersIdentical(deviceParams, at);
        }
    }

    /**
     * The notebook's {@code split_batch(X, y, devices)} of this process's rows: with several processes each takes
     * its rank's chunk of the global batch, then splits it over its own devices, both as {@code torch.chunk} does
     * (or over the devices in proportion to the config's shares); a device (or a whole process) left without rows
     * computes nothing and adds zero gradients.
     */
    private List<DeviceStep> splitBatch(HostBatch batch) {
        ProcessGroup group = config.processGroup();
        int[] perProcess = Scatter.shardSizes(batch.size(), group.size());
        int firstRow = 0;
        for (int r = 0; r < group.rank(); r++) {
            firstRow += perProcess[r];
        }
        List<Shard> shards = Scatter.splitBatch(
                batch,
                deviceParams.stream().map(Replica::workspace).toList(),
                deviceShardSizes(perProcess[group.rank()]),
                firstRow);
        List<DeviceStep> steps = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            steps.add(new DeviceStep(deviceParams.get(i), shards.get(i), batch.shape()));
        }
        return steps;
    }

    /** How this process's {@code rows} rows are split over its devices: in proportion to the shares, if given. */
    private int[] deviceShardSizes(int rows) {
        List<Double> shares = config.shares();
        if (shares.isEmpty() || rows < devices.size()) {
            return Scatter.shardSizes(rows, devices.size());
        }
        return Scatter.shardSizes(
                rows, shares.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** Each shard's loss and correct predictions, read from its device, each loss checked to be finite. */
    private static BatchStats lossAndMatches(List<DeviceStep> steps, Position at, float lr) {
        double lossSum = 0;
        int correct = 0;
        int samples = 0;
        for (DeviceStep step : steps) {
            double shardLoss = step.lossSum();
            StepChecks.finiteLoss(shardLoss, step.device(), at, lr);
            lossSum += shardLoss;
            correct += step.correct();
            samples += step.samples();
        }
        return new BatchStats(lossSum, correct, samples);
    }

    /**
     * The notebook's {@code train(num_gpus, batch_size, lr)}: epochs of shuffled mini-batches, each epoch's
     * training loop timed with the devices synchronized, then the test accuracy on device 0.
     */
    public TrainResult train(FashionMnist.Splits data, TrainingListener listener) {
        return train(data, listener, TrainingState.START, Checkpoints.NONE);
    }

    /**
     * {@link #train(FashionMnist.Splits, TrainingListener)} from {@code from}, a state this run was checkpointed
     * in (the replicas must hold the parameters saved with it), handing {@code checkpoints} the state after every
     * epoch and every {@link Checkpoints#everySteps()} optimizer steps. Each step takes the config's
     * {@link TrainConfig#accumulate()} micro-batches, the epoch's last step those left. Resumed on the same devices and backend, it gives
     * the parameters and figures of the uninterrupted run bit for bit.
     */
    public TrainResult train(
            FashionMnist.Splits data, TrainingListener listener, TrainingState from, Checkpoints checkpoints) {
        int batches = BatchIterator.batchesPerEpoch(data.train().count(), config.batchSize());
        int stepsPerEpoch = Math.ceilDiv(batches, config.accumulate());
        checkResumable(from, batches);
        listener.onStart(new TrainingListener.Start(
                deviceIds(),
                config.epochs(),
                batches,
                data.train().count(),
                data.test().count(),
                from));
        // The sums of a resumed epoch are over all processes: rank 0 carries them on, the others start at zero
        boolean carries = config.processGroup().rank() == 0;
        List<TrainingListener.EpochDone> epochs = new ArrayList<>(from.finished());
        for (int epoch = from.epoch(); epoch <= config.epochs(); epoch++) {
            boolean resumed = epoch == from.epoch();
            double lossSum = resumed && carries ? from.lossSum() : 0;
            long correct = resumed && carries ? from.correct() : 0;
            double wallBefore = resumed ? from.wallSec() : 0;
            double simStart = simulatedNow() - (resumed ? from.simSec() : 0);
            long start = System.nanoTime();
            BatchIterator it =
                    BatchIterator.ofEpoch(data.train(), config.batchSize(), config.shuffle(), config.seed(), epoch);
            it.skip(resumed ? from.batchesDone() : 0);
            while (it.hasNext()) {
                StepBatches microBatches = new StepBatches(it, config.accumulate(), timeline());
                BatchStats stats = trainStep(microBatches, config.lr(), epoch);
                int done = microBatches.batchesDone();
                devices.forEach(Device::synchronize);
                lossSum += stats.lossSum();
                correct += stats.correct();
                listener.onBatch(new TrainingListener.BatchDone(
                        epoch, done, batches, stats.samples(), stats.lossSum(), stats.correct()));
                long step = (long) (epoch - 1) * stepsPerEpoch + Math.ceilDiv(done, config.accumulate());
                if (checkpoints.saves()
                        && checkpoints.everySteps() > 0
                        && step % checkpoints.everySteps() == 0
                        && done < batches) {
                    // The epoch's checkpoint follows its last batch; this one is for a stop inside the epoch
                    List<HostTensor> params = checkpointed();
                    double[] sums = {lossSum, correct};
                    config.processGroup().allReduce(sums);
                    checkpoints.save(
                            new TrainingState(
                                    epoch,
                                    done,
                                    sums[0],
                                    Math.round(sums[1]),
                                    wallBefore + (System.nanoTime() - start) / 1e9,
                                    simulatedNow() - simStart,
                                    epochs),
                            params);
                }
            }
            double wallSec = wallBefore + (System.nanoTime() - start) / 1e9;
            double simSec = simulatedNow() - simStart;
            double[] sums = {lossSum, correct};
            config.processGroup().allReduce(sums);
            lossSum = sums[0];
            correct = Math.round(sums[1]);
            // Verify the model on GPU 0
            double testAcc = evaluateAccuracy(data.test());
            TrainingListener.EpochDone done = new TrainingListener.EpochDone(
                    epoch,
                    config.epochs(),
                    lossSum / data.train().count(),
                    (double) correct / data.train().count(),
                    testAcc,
                    wallSec,
                    simSec);
            epochs.add(done);
            listener.onEpoch(done);
            if (checkpoints.saves()) {
                checkpoints.save(TrainingState.after(epochs), checkpointed());
            }
        }
        return new TrainResult(
                deviceIds(),
                List.copyOf(epochs),
                timeline().map(Timeline::description).orElse(null));
    }

    private void checkResumable(TrainingState from, int batches) {
        if (from.finished().size() > config.epochs()) {
            throw new IllegalArgumentException(
                    "the run to resume has finished " + from.finished().size()
                            + " epochs, more than the " + config.epochs() + " asked for; ask for "
                            + from.finished().size()
                            + " or more");
        }
        if (from.batchesDone() > batches) {
            throw new IllegalArgumentException("the run to resume is at batch " + from.batchesDone()
                    + " of an epoch that has " + batches + " batches");
        }
    }

    /** The simulated time of the devices, when a cost model times them (backend {@code sim}). */
    public Optional<Timeline> timeline() {
        return devices.getFirst().timeline();
    }

    private double simulatedNow() {
        return timeline().map(Timeline::now).orElse(Double.NaN);
    }

    /** The notebook's {@code evaluate_accuracy_gpu}: the share of {@code data} that device 0's replica classifies right. */
    public double evaluateAccuracy(Dataset data) {
        return evaluateAccuracy(data, 0);
    }

    /**
     * The share of {@code data} that the replica on device {@code index} classifies right. With several
     * processes each classifies every size-th batch and the counts are summed.
     */
    public double evaluateAccuracy(Dataset data, int index) {
        requireInput(data.shape());
        return modelState.withAllParameters(() -> countCorrect(data, deviceParams.get(index)));
    }

    private double countCorrect(Dataset data, Replica replica) {
        ProcessGroup group = config.processGroup();
        long correct = 0;
        BatchIterator it = new BatchIterator(data, config.batchSize());
        for (int i = 0; it.hasNext(); i++) {
            HostBatch b = it.next();
            if (i % group.size() != group.rank()) {
                continue;
            }
            try (Tape tape = Tape.inference(replica.workspace())) {
                ImageShape image = data.shape();
                Tensor x = tape.newTensor(false, b.size(), image.channels(), image.height(), image.width());
                Tensor y = tape.newTensor(false, b.size());
                replica.device().upload(b.x(), 0, x.data());
                replica.device().upload(b.y(), 0, y.data());
                Tensor logits = model.forward(tape, x, replica.params(), replica.buffers(), Mode.EVAL);
                correct += DeviceStep.matches(tape, logits, y);
            }
        }
        double[] sum = {correct};
        group.allReduce(sum);
        return sum[0] / data.count();
    }

    /** The current parameters, read from device 0 (gathered from every device's chunk under ZeRO stage 3). */
    public List<HostTensor> parameters() {
        return modelState.parameters();
    }

    /** The current state, parameters then device 0's buffers: what files hold. */
    public List<HostTensor> state() {
        List<HostTensor> all = new ArrayList<>(parameters());
        all.addAll(deviceParams.getFirst().downloadBuffers());
        return List.copyOf(all);
    }

    /** What a checkpoint holds beside the run's state: the model's state, then the optimizer's. */
    private List<HostTensor> checkpointed() {
        List<HostTensor> all = new ArrayList<>(state());
        all.addAll(optimizerState());
        return List.copyOf(all);
    }

    /**
     * The optimizer's state, read from device 0 or gathered from every device's chunk under ZeRO, as
     * {@link OptimizerState#toHost} names it; none for plain SGD.
     */
    public List<HostTensor> optimizerState() {
        return modelState.optimizerState();
    }

    /**
     * Starts the optimizer of every replica from {@code state}, which a checkpoint of this run took with
     * {@link #optimizerState}: its names those of {@link OptimizerState#names}, checked here.
     */
    public void resumeOptimizer(List<HostTensor> state) {
        List<String> expected =
                OptimizerState.names(config.optimizer(), deviceParams.getFirst().names());
        List<String> given = state.stream().map(HostTensor::name).toList();
        if (!expected.equals(given)) {
            throw new IllegalArgumentException("the optimizer's state to resume is not " + config.optimizer()
                    + "'s: it keeps " + expected + ", this is " + given);
        }
        modelState.resumeOptimizer(state);
    }

    @Override
    public void close() {
        if (synchronizedStatistics != null) {
            synchronizedStatistics.close();
        }
        modelState.close();
        deviceParams.forEach(Replica::close);
    }
}
