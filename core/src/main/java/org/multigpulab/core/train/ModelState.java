package org.multigpulab.core.train;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.optim.Optimizer;
import org.multigpulab.core.optim.OptimizerState;
import org.multigpulab.core.parallel.DeviceZeroCollectives;
import org.multigpulab.core.parallel.FlatShards;
import org.multigpulab.core.parallel.GradientSync;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.parallel.ReplicaUpdate;
import org.multigpulab.core.parallel.ZeroStage;
import org.multigpulab.device.Buffer;

/**
 * What each device holds of the model's training state, parameters, gradients and the optimizer's state, under a
 * {@link ZeroStage}, and the collectives a step needs to keep it right:
 * <ul>
 *   <li>stage 0, the notebook's: every replica holds all of it; gradients all-reduced ({@link GradientSync});
 *   <li>stage 1: each device keeps the optimizer's state of its {@linkplain FlatShards chunk} only, updates that
 *       chunk of its parameters after the all-reduce, and the parameters are all-gathered;
 *   <li>stage 2: gradients reduce-scattered instead, bucket by bucket during the backward pass, each device
 *       keeping its chunk's sum only ({@link ShardedGradients});
 *   <li>stage 3: parameters too, each device keeping its chunk; a pass gathers each unit of layers as it reaches
 *       it, prefetches the next and frees the one before (PyTorch FSDP's pattern, {@link ShardedParameters}).
 * </ul>
 * With {@link ReplicaUpdate#FROM_DEVICE_0} ({@code nn.DataParallel}, stage 0 only) the gradients are reduced onto
 * device 0, which alone takes the optimizer step and broadcasts its parameters ({@link DeviceZeroCollectives}).
 * The update is the same in every stage; buffers (running statistics) stay replicated. The trainer calls the step's
 * hooks in order: {@link #beforeForward}, {@link #afterForward}, {@link #beforeBackward}, the backward passes with
 * {@link #hook} (interleaved over the devices where {@link #interleavesBackward}), {@link #afterBackward},
 * {@link #synchronize}, {@link #step}. Not thread-safe.
 */
final class ModelState implements AutoCloseable {

    private final ZeroStage stage;
    private final List<Replica> replicas;
    private final ProcessGroup group;
    private final Optimizer optimizer;
    /** Stages 1 to 3: the chunk each device owns; null in stage 0. */
    private final FlatShards shards;
    /** Stages 0 and 1: the all-reduce of the gradients; null in stages 2 and 3 and with nn.DataParallel's update. */
    private final GradientSync allReduce;
    /** nn.DataParallel's update: the reduce onto device 0 and the broadcast from it; else null. */
    private final DeviceZeroCollectives deviceZero;

    private final List<OptimizerState> optimizerStates = new ArrayList<>();
    /** Stages 2 and 3: the gradients in buckets, reduce-scattered, each device keeping its chunk; else null. */
    private final ShardedGradients gradients;
    /** Stage 3: the parameters in units, gathered for a pass, each device keeping its chunk; else null. */
    private final ShardedParameters parameters;

    /** The state of {@code replicas}, made at {@code config}'s stage from the parameters {@code start}. */
    ModelState(List<Replica> replicas, TrainConfig config, List<HostTensor> start) {
        this.stage = config.zero();
        this.replicas = replicas;
        this.group = config.processGroup();
        this.optimizer = config.optimizer();
        this.shards = stage.shardsOptimizerState() ? new FlatShards(replicas, group) : null;
        long bucketBytes = config.bucketBytes() > 0 ? config.bucketBytes() : TrainConfig.DDP_BUCKET_BYTES;
        this.deviceZero =
                config.replicaUpdate() == ReplicaUpdate.FROM_DEVICE_0 ? new DeviceZeroCollectives(replicas) : null;
        this.allReduce = stage.shardsGradients() || deviceZero != null
                ? null
                : GradientSync.of(replicas, config.allReduce(), config.bucketBytes(), group);
        this.parameters = stage.shardsParameters() ? new ShardedParameters(replicas, shards, bucketBytes, start) : null;
        this.gradients = stage.shardsGradients() ? new ShardedGradients(replicas, shards, bucketBytes) : null;
        for (int d = 0; d < replicas.size(); d++) {
            Replica r = replicas.get(d);
            if (!stage.shardsOptimizerState()) {
                optimizerStates.add(new OptimizerState(optimizer, r));
                continue;
            }
            int offset = shards.offset(d), length = shards.length(d);
            Buffer values = parameters != null ? parameters.own(d) : r.values().slice(offset, length);
            Buffer grads = gradients != null ? gradients.own(d) : r.gradients().slice(offset, length);
            optimizerStates.add(new OptimizerState(optimizer, r, offset, length, values, grads));
        }
    }

    /** Stage 3: the units a forward pass reads are gathered as it reaches them. */
    void beforeForward() {
        if (parameters != null) {
            parameters.startPass(true);
        }
    }

    /** Stage 3: the gathered units freed. */
    void afterForward() {
        if (parameters != null) {
            parameters.freeAll();
        }
    }

    /** Stage 3: the units a backward pass reads are gathered as it reaches them, last layers first. */
    void beforeBackward() {
        if (parameters != null) {
            parameters.startPass(false);
        }
    }

    /**
     * Whether the devices' backward passes must run interleaved, one recorded op of each in turn, as they would run
     * at once on real GPUs: wherever buckets of gradients are summed during the pass (DDP's buckets; stages 2 and 3,
     * which also free them), so that a bucket's sum waits for every device's gradients of it and no more.
     */
    boolean interleavesBackward() {
        return gradients != null || (allReduce != null && allReduce.sumsDuringBackward());
    }

    /** Before the backward passes that are to be summed: forgets what the last step's buckets delivered. */
    void prepareForBackward() {
        if (allReduce != null) {
            allReduce.prepareForBackward();
        } else if (gradients != null) {
            gradients.prepareForBackward();
        }
    }

    /** What device {@code device}'s summed backward pass calls as each gradient receives a contribution. */
    Consumer<Tensor> hook(int device) {
        if (allReduce != null) {
            return allReduce.hook(device);
        }
        return gradients != null ? t -> gradients.gradientReady(device, t) : t -> {};
    }

    /** Stage 3: the units gathered for the backward passes freed. */
    void afterBackward() {
        afterForward();
    }

    /**
     * After the step's last backward passes: stages 0 and 1 all-reduce the gradients (or complete their buckets),
     * nn.DataParallel reduces them onto device 0; in stages 2 and 3 every bucket has been reduce-scattered by now.
     */
    void synchronize() {
        if (deviceZero != null) {
            deviceZero.reduceGradients();
        } else if (allReduce != null) {
            allReduce.synchronize();
        } else {
            gradients.synchronize();
        }
    }

    /**
     * The optimizer's update of what each device owns, from gradients summed over {@code images}; in stages 1 and
     * 2 the updated chunks then all-gathered into every replica; with nn.DataParallel's update device 0's step,
     * its parameters then broadcast.
     */
    void step(float lr, int images) {
        if (deviceZero != null) {
            optimizer.step(optimizerStates.getFirst(), lr, images);
            deviceZero.broadcastParameters();
            return;
        }
        optimizerStates.forEach(s -> optimizer.step(s, lr, images));
        if (stage.shardsOptimizerState() && !stage.shardsParameters()) {
            shards.allGather(replicas.stream().map(Replica::values).toList(), "the next step");
        }
    }

    /**
     * Runs {@code work}, an evaluation, with every replica's parameters at hand: in stage 3 gathered layer by layer as
     * its forward passes reach them.
     */
    <T> T withAllParameters(Supplier<T> work) {
        beforeForward();
        try {
            return work.get();
        } finally {
            afterForward();
        }
    }

    /** The devices whose optimizer states hold all of it between them: device 0 alone unless sharded. */
    private List<OptimizerState> owners() {
        return stage.shardsOptimizerState() ? optimizerStates : optimizerStates.subList(0, 1);
    }

    /** The summed gradients the optimizer reads checked to be finite ({@link StepChecks#finiteGradients}). */
    void checkFiniteGradients(StepChecks.Position at, float lr) {
        List<OptimizerState> owners = owners();
        for (int d = 0; d < owners.size(); d++) {
            StepChecks.finiteGradients(replicas.get(d), owners.get(d), at, lr);
        }
    }

    /** Wall seconds spent all-reducing gradients across processes; 0 in one process or when reduce-scattered. */
    double crossProcessSeconds() {
        return allReduce == null ? 0 : allReduce.crossProcessSeconds();
    }

    /** How many times gradients were all-reduced across processes. */
    long crossProcessCalls() {
        return allReduce == null ? 0 : allReduce.crossProcessCalls();
    }

    /** Whether every replica holds all parameters between steps, so that they can be compared. */
    boolean replicated() {
        return !stage.shardsParameters();
    }

    /** The parameters, read from device 0 or, in stage 3, gathered from every device's chunk into the host. */
    List<HostTensor> parameters() {
        Replica first = replicas.getFirst();
        if (!stage.shardsParameters()) {
            return first.download();
        }
        float[] flat = new float[first.length()];
        for (int d = 0; d < replicas.size(); d++) {
            replicas.get(d).device().download(parameters.own(d), flat, shards.offset(d));
        }
        if (group.size() > 1) {
            group.allReduce(flat, 0, flat.length); // the other processes' chunks are zeros here: an exact gather
        }
        List<HostTensor> out = new ArrayList<>();
        for (int p = 0; p < first.params().size(); p++) {
            Tensor t = first.params().get(p);
            int from = first.offset(p);
            out.add(new HostTensor(
                    first.names().get(p), t.shape(), Arrays.copyOfRange(flat, from, from + t.size()), false));
        }
        return List.copyOf(out);
    }

    /** The optimizer's whole state, as checkpoints keep it, gathered from the devices that own its chunks. */
    List<HostTensor> optimizerState() {
        Replica first = replicas.getFirst();
        List<float[]> flat = OptimizerState.flatArrays(optimizer, first.length());
        owners().forEach(s -> s.downloadInto(flat));
        if (stage.shardsOptimizerState() && group.size() > 1) {
            flat.forEach(kind -> group.allReduce(kind, 0, kind.length)); // zeros outside each chunk: exact
        }
        return OptimizerState.toHost(
                optimizer, first, flat, optimizerStates.getFirst().steps());
    }

    /** Every device's optimizer state, or its chunk, taken from {@code state} as {@link #optimizerState} gave it. */
    void resumeOptimizer(List<HostTensor> state) {
        List<float[]> flat = OptimizerState.fromHost(optimizer, replicas.getFirst(), state);
        optimizerStates.forEach(s -> s.uploadFrom(flat, OptimizerState.steps(state)));
    }

    /** What device {@code d} holds between steps, by kind, and the peak its device measured. */
    DeviceMemory memory(int d) {
        Replica r = replicas.get(d);
        long all = (long) Float.BYTES * r.length();
        long chunk = shards == null ? all : (long) Float.BYTES * shards.length(d);
        long buffers = (long) Float.BYTES
                * r.buffers().stream().mapToLong(Tensor::size).sum();
        return new DeviceMemory(
                r.device().id(),
                stage.shardsParameters() ? chunk : all,
                stage.shardsGradients() ? chunk : all,
                optimizerStates.get(d).bytes(),
                buffers,
                r.workspace().bytes(),
                r.device().stats().peakAllocatedBytes());
    }

    @Override
    public void close() {
        optimizerStates.forEach(OptimizerState::close);
        if (gradients != null) {
            gradients.close();
        }
        if (parameters != null) {
            parameters.close();
        }
    }
}
