package org.multigpulab.core.train;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.core.model.HostTensor;
import org.multigpulab.core.optim.Optimizer;
import org.multigpulab.core.optim.OptimizerState;
import org.multigpulab.core.parallel.FlatShards;
import org.multigpulab.core.parallel.GradientSync;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.core.parallel.ZeroStage;
import org.multigpulab.device.Buffer;

/**
 * What each device holds of the model's training state, parameters, gradients and the optimizer's state, under a
 * {@link ZeroStage}, and the collectives a step needs to keep it right:
 * <ul>
 *   <li>stage 0, the notebook's: every replica holds all of it; gradients all-reduced ({@link GradientSync});
 *   <li>stage 1: each device keeps the optimizer's state of its {@linkplain FlatShards chunk} only, updates that
 *       chunk of its parameters after the all-reduce, and the parameters are all-gathered;
 *   <li>stage 2: gradients reduce-scattered instead, each device keeping its chunk's sum only between steps;
 *   <li>stage 3: parameters too, each device keeping its chunk; the whole model's are all-gathered before every
 *       forward and every backward pass and freed after it (PyTorch FSDP's pattern with the model as one unit).
 * </ul>
 * The update is the same in every stage; buffers (running statistics) stay replicated. The trainer calls the step's
 * hooks in order: {@link #beforeForward}, {@link #afterForward}, {@link #beforeBackward}, the backward passes with
 * {@link #hook}, {@link #afterBackward}, {@link #synchronize}, {@link #step}. Not thread-safe.
 */
final class ModelState implements AutoCloseable {

    private final ZeroStage stage;
    private final List<Replica> replicas;
    private final ProcessGroup group;
    private final Optimizer optimizer;
    /** Stages 1 to 3: the chunk each device owns; null in stage 0. */
    private final FlatShards shards;
    /** Stages 0 and 1: the all-reduce of the gradients; null in stages 2 and 3. */
    private final GradientSync allReduce;

    private final List<OptimizerState> optimizerStates = new ArrayList<>();
    /** Stages 2 and 3: each device's chunk of the summed gradients, kept between steps. */
    private final List<Buffer> ownGradients = new ArrayList<>();
    /** Stage 3: each device's chunk of the parameters, kept between passes. */
    private final List<Buffer> ownValues = new ArrayList<>();

    ModelState(List<Replica> replicas, TrainConfig config) {
        this.stage = config.zero();
        this.replicas = replicas;
        this.group = config.processGroup();
        this.optimizer = config.optimizer();
        this.shards = stage.shardsOptimizerState() ? new FlatShards(replicas, group) : null;
        if (stage.shardsGradients() && config.bucketBytes() > 0) {
            throw new IllegalArgumentException("ZeRO stage " + stage.number() + " reduce-scatters the gradients after"
                    + " the backward pass, not in buckets: leave out the bucket size, or take stage 0 or 1");
        }
        this.allReduce = stage.shardsGradients()
                ? null
                : GradientSync.of(replicas, config.allReduce(), config.bucketBytes(), group);
        for (int d = 0; d < replicas.size(); d++) {
            Replica r = replicas.get(d);
            if (!stage.shardsOptimizerState()) {
                optimizerStates.add(new OptimizerState(optimizer, r));
                continue;
            }
            int offset = shards.offset(d), length = shards.length(d);
            Buffer grads = r.gradients().slice(offset, length);
            if (stage.shardsGradients()) {
                grads = r.device().allocate(length);
                ownGradients.add(grads);
                r.releaseGradients();
            }
            Buffer values = r.values().slice(offset, length);
            if (stage.shardsParameters()) {
                values = r.device().allocate(length);
                Ops.copy(r.device().kernels(), r.values().slice(offset, length), values, length);
                ownValues.add(values);
                r.releaseValues();
            }
            optimizerStates.add(new OptimizerState(optimizer, r, offset, length, values, grads));
        }
    }

    /** Stage 3: every device's parameters gathered for the forward pass. */
    void beforeForward() {
        if (stage.shardsParameters()) {
            gatherValues("forward");
        }
    }

    /** Stage 3: the gathered parameters freed. */
    void afterForward() {
        if (stage.shardsParameters()) {
            replicas.forEach(Replica::releaseValues);
        }
    }

    /**
     * Before the backward passes of a micro-batch: in stage 3 the parameters gathered again; in stages 2 and 3, at
     * the step's first micro-batch, every device's whole gradients given a buffer until their reduce-scatter.
     */
    void beforeBackward(boolean firstMicroBatch) {
        if (stage.shardsParameters()) {
            gatherValues("backward");
        }
        if (stage.shardsGradients() && firstMicroBatch) {
            replicas.forEach(r -> r.bindGradients(r.device().allocate(r.length())));
        }
    }

    /** Before the backward passes that are to be summed: forgets what the last step's buckets delivered. */
    void prepareForBackward() {
        if (allReduce != null) {
            allReduce.prepareForBackward();
        }
    }

    /** What device {@code device}'s summed backward pass calls as each gradient receives a contribution. */
    Consumer<Tensor> hook(int device) {
        return allReduce != null ? allReduce.hook(device) : t -> {};
    }

    /** Stage 3: the parameters gathered for the backward passes freed. */
    void afterBackward() {
        afterForward();
    }

    /**
     * After the step's last backward passes: stages 0 and 1 all-reduce the gradients; stages 2 and 3 reduce-scatter
     * them, keep their chunk and free the rest.
     */
    void synchronize() {
        if (allReduce != null) {
            allReduce.synchronize();
            return;
        }
        shards.reduceScatter(replicas.stream().map(Replica::gradients).toList());
        for (int d = 0; d < replicas.size(); d++) {
            Replica r = replicas.get(d);
            int length = shards.length(d);
            Ops.copy(r.device().kernels(), r.gradients().slice(shards.offset(d), length), ownGradients.get(d), length);
            r.releaseGradients();
        }
    }

    /**
     * The optimizer's update of what each device owns, from gradients summed over {@code images}; in stages 1 and
     * 2 the updated chunks then all-gathered into every replica.
     */
    void step(float lr, int images) {
        optimizerStates.forEach(s -> optimizer.step(s, lr, images));
        if (stage.shardsOptimizerState() && !stage.shardsParameters()) {
            shards.allGather(replicas.stream().map(Replica::values).toList(), "the next step");
        }
    }

    private void gatherValues(String before) {
        for (int d = 0; d < replicas.size(); d++) {
            Replica r = replicas.get(d);
            Buffer all = r.device().allocate(r.length());
            Ops.copy(
                    r.device().kernels(),
                    ownValues.get(d),
                    all.slice(shards.offset(d), shards.length(d)),
                    shards.length(d));
            r.bindValues(all);
        }
        shards.allGather(replicas.stream().map(Replica::values).toList(), before);
    }

    /** Runs {@code work} with every replica holding all parameters (gathered for it in stage 3). */
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
            replicas.get(d).device().download(ownValues.get(d), flat, shards.offset(d));
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
        ownGradients.forEach(Buffer::close);
        ownValues.forEach(Buffer::close);
    }
}
