package org.multigpulab.core.parallel;

import java.util.List;
import java.util.function.Consumer;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.dist.ProcessGroup;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.StepPart;

/**
 * Gradient synchronisation, as PyTorch's {@code Reducer} is for DDP: after a step's backward passes every replica
 * holds the gradient summed over all devices and all processes. Over this process's devices the sums are made by
 * an {@link AllReduceAlgorithm}, either {@linkplain #perParameter every parameter after the backward pass} (the
 * notebook) or {@linkplain #bucketed in buckets while the backward pass runs} (DDP's {@code bucket_cap_mb}); then
 * over the processes of a {@link ProcessGroup}. The sums are the same either way; on simulated GPUs the time is
 * not, because with buckets sending overlaps computing.
 *
 * <p>Each step: {@link #prepareForBackward()}, every device's backward pass with {@link #hook(int)}, then
 * {@link #synchronize()}. Made once, before training. Not thread-safe.
 */
public abstract sealed class GradientSync {

    final List<Replica> replicas;
    final AllReduceAlgorithm algorithm;
    private final AcrossProcesses acrossProcesses;

    private GradientSync(List<Replica> replicas, AllReduceAlgorithm algorithm, ProcessGroup group) {
        this.replicas = List.copyOf(replicas);
        this.algorithm = algorithm;
        this.acrossProcesses = new AcrossProcesses(this.replicas, group);
    }

    /**
     * Synchronisation chosen by configuration: {@link #perParameter} when {@code bucketBytes} is 0, else
     * {@link #bucketed} in DDP's buckets of {@code bucketBytes}.
     */
    public static GradientSync of(
            List<Replica> replicas, AllReduceAlgorithm algorithm, long bucketBytes, ProcessGroup group) {
        return bucketBytes == 0
                ? perParameter(replicas, algorithm, group)
                : bucketed(replicas, algorithm, bucketBytes, group);
    }

    /**
     * The notebook's: after the whole backward pass, every parameter's gradient summed on its own, in parameter
     * order ({@code for i in range(len(device_params[0])): allreduce(...)}); then all of them across the processes
     * at once.
     */
    public static GradientSync perParameter(List<Replica> replicas, AllReduceAlgorithm algorithm, ProcessGroup group) {
        return new PerParameter(replicas, algorithm, group);
    }

    /**
     * DDP's: the gradients in DDP's buckets, the first of 1 MiB, the others of {@code capBytes}
     * ({@link GradientBuckets#ddp}), each summed over the
     * devices and then across the processes as soon as every device has all of its gradients and the buckets before
     * it are summed, while the backward pass goes on. Needs every parameter used once in the forward pass.
     */
    public static GradientSync bucketed(
            List<Replica> replicas, AllReduceAlgorithm algorithm, long capBytes, ProcessGroup group) {
        return new Bucketed(replicas, algorithm, capBytes, group);
    }

    /** Before a step's backward passes: forgets which gradients the last step delivered (DDP's name). */
    public abstract void prepareForBackward();

    /** What device {@code device}'s backward pass calls each time a parameter's gradient received a contribution. */
    public abstract Consumer<Tensor> hook(int device);

    /** After every device's backward pass: the sums that are still to make; afterwards every replica holds them. */
    public abstract void synchronize();

    /**
     * Whether sums start during the backward passes, which must then run side by side, one recorded op of each device
     * in turn, as DDP's processes run them: a device's bucket is summed once every device has it, not once the
     * devices before it have finished their passes.
     */
    public abstract boolean sumsDuringBackward();

    /** Wall seconds spent summing gradients across processes; 0 in one process. */
    public double crossProcessSeconds() {
        return acrossProcesses.seconds();
    }

    /** How many times gradients were summed across processes; 0 in one process. */
    public long crossProcessCalls() {
        return acrossProcesses.calls();
    }

    /** Sums the step's tensor {@code tensor}, one buffer per device, over the devices, in a range of {@code part}. */
    void allReduce(StepPart part, List<Buffer> buffers, int tensor) {
        try (OnEveryDevice r = OnEveryDevice.range(replicas, part)) {
            algorithm.allReduce(buffers, tensor);
        }
    }

    void acrossProcesses(int offset, int length) {
        acrossProcesses.allReduce(offset, length);
    }

    private static final class PerParameter extends GradientSync {

        PerParameter(List<Replica> replicas, AllReduceAlgorithm algorithm, ProcessGroup group) {
            super(replicas, algorithm, group);
        }

        @Override
        public void prepareForBackward() {}

        @Override
        public Consumer<Tensor> hook(int device) {
            return t -> {};
        }

        @Override
        public boolean sumsDuringBackward() {
            return false;
        }

        @Override
        public void synchronize() {
            Replica first = replicas.getFirst();
            for (int p = 0; p < first.params().size(); p++) {
                int param = p;
                allReduce(
                        new StepPart.ParameterAllReduce(first.names().get(p)),
                        replicas.stream().map(r -> r.params().get(param).grad()).toList(),
                        p);
            }
            acrossProcesses(0, first.gradients().length());
        }
    }

    /** Sums each bucket, over the devices and then the processes, once it is complete ({@link BucketsInOrder}). */
    private static final class Bucketed extends GradientSync {

        private final BucketsInOrder buckets;

        Bucketed(List<Replica> replicas, AllReduceAlgorithm algorithm, long capBytes, ProcessGroup group) {
            super(replicas, algorithm, group);
            this.buckets = new BucketsInOrder(
                    this.replicas, GradientBuckets.ddp(this.replicas.getFirst(), capBytes), this::sum);
        }

        private void sum(GradientBuckets.Bucket b) {
            allReduce(
                    new StepPart.BucketAllReduce(b.index()),
                    replicas.stream()
                            .map(r -> r.gradients().slice(b.offset(), b.length()))
                            .toList(),
                    b.index());
            acrossProcesses(b.offset(), b.length());
        }

        @Override
        public void prepareForBackward() {
            buckets.prepare();
        }

        @Override
        public Consumer<Tensor> hook(int device) {
            return parameter -> buckets.ready(device, parameter);
        }

        @Override
        public boolean sumsDuringBackward() {
            return true;
        }

        @Override
        public void synchronize() {
            buckets.requireAllComplete();
        }
    }
}
