package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Add;
import org.multigpulab.device.Kernels;

/**
 * Collective operations over one buffer per device, named and defined as in NCCL: {@code allReduce} leaves the
 * sum in every buffer; {@code reduce} leaves it in the root's buffer only; {@code broadcast} copies the root's
 * buffer into every other; {@code reduceScatter} leaves chunk i of the sum on device i; {@code allGather} gives
 * every device every device's chunk. Only {@code reduce} and {@code broadcast} have a root. How
 * {@code allReduce} moves the data is an {@link AllReduceAlgorithm}, a value, not part of its name. Chunks
 * split a buffer as {@link Scatter#balancedSizes} splits rows: the first {@code n % k} chunks one element longer.
 * The buffers must have equal lengths and live on distinct devices; data moves only by peer copies, so each
 * device's stats count exactly the bytes it received (and, on {@code sim}, sent).
 */
public final class Collectives {

    private Collectives() {}

    /**
     * {@code allReduce} with the notebook's algorithm, {@link AllReduceAlgorithm#NAIVE}: the notebook's
     * {@code allreduce(data)} is {@link #reduce} onto device 0, then {@link #broadcast} from it.
     *
     * <p>The notebook's Python rebinds {@code data[i]} to the copy instead of writing into it, so with gradients
     * the replicas other than 0 never see the sum; here the sum is written into each buffer.
     */
    public static void allReduce(List<Buffer> buffers) {
        allReduce(buffers, AllReduceAlgorithm.NAIVE);
    }

    /**
     * Runs {@code moves}, the data movement of NCCL's collective {@code op} over {@code buffers} (one per device),
     * as one NCCL call: a timeline with a model of NCCL charges it as that model times {@code op} over one buffer's
     * bytes; without one the moves are all there is.
     */
    static void asOneNcclCall(Collective op, List<Buffer> buffers, Runnable moves) {
        long bytes = (long) checkLengths(buffers) * Float.BYTES;
        buffers.getFirst().device().timeline().ifPresentOrElse(t -> t.asOneNcclCall(op, bytes, moves), moves);
    }

    /** {@code allReduce}: the sum of {@code buffers} into every one of them, the data moved by {@code algorithm}. */
    public static void allReduce(List<Buffer> buffers, AllReduceAlgorithm algorithm) {
        algorithm.allReduce(buffers);
    }

    /**
     * {@code reduce}: the sum of {@code buffers} into {@code buffers[root]}, each other buffer copied to the root
     * and added there in turn ({@code data[0][:] += data[i].to(data[0].device)}); the others are left as they
     * were. The root receives (k−1)·S bytes, every other device sends S.
     */
    public static void reduce(List<Buffer> buffers, int root) {
        int n = checkLengths(buffers);
        Buffer sum = buffers.get(root);
        if (buffers.size() == 1) {
            return;
        }
        Device rootDevice = sum.device();
        try (Buffer staged = rootDevice.allocate(n)) {
            for (Buffer other : buffers) {
                if (other != sum) {
                    rootDevice.copyFromPeer(other, staged); // data[i].to(data[0].device)
                    rootDevice.commKernels().launch(new Add(sum, staged, sum, n)); // data[0][:] += ...
                }
            }
        }
    }

    /**
     * {@link #reduce} adding the buffers in device order, ((b0 + b1) + b2) + …, whatever the root: the sums of
     * {@code reduce} onto device 0 (the notebook's), bit for bit, on any device. The root receives (k−1)·S bytes.
     */
    public static void reduceInOrder(List<Buffer> buffers, int root) {
        int n = checkLengths(buffers);
        if (root == 0 || buffers.size() == 1) {
            reduce(buffers, root);
            return;
        }
        Buffer sum = buffers.get(root);
        Device rootDevice = sum.device();
        Kernels k = rootDevice.commKernels();
        try (Buffer total = rootDevice.allocate(n);
                Buffer staged = rootDevice.allocate(n)) {
            for (int i = 0; i < buffers.size(); i++) {
                Buffer term = buffers.get(i);
                if (i != root) {
                    rootDevice.copyFromPeer(term, staged);
                    term = staged;
                }
                if (i == 0) {
                    Ops.copy(k, term, total, n);
                } else {
                    k.launch(new Add(total, term, total, n));
                }
            }
            Ops.copy(k, total, sum, n);
        }
    }

    /**
     * {@code broadcast}: {@code buffers[root]} copied into every other buffer, straight from the root
     * ({@code data[i][:] = data[0].to(data[i].device)}). The root sends (k−1)·S bytes, every other device receives S.
     */
    public static void broadcast(List<Buffer> buffers, int root) {
        checkLengths(buffers);
        Buffer from = buffers.get(root);
        for (Buffer other : buffers) {
            if (other != from) {
                other.device().copyFromPeer(from, other);
            }
        }
    }

    /**
     * {@code reduceScatter}, in place: afterwards chunk i of device i's buffer holds chunk i of the sum (the other
     * chunks hold partial sums). On a ring: in step s device i sends chunk (i − s − 1) mod k to device i + 1,
     * which adds it to its own copy of that chunk; after k − 1 steps device i holds the sum of chunk i.
     */
    public static void reduceScatter(List<Buffer> buffers) {
        int n = checkLengths(buffers);
        int k = buffers.size();
        if (k == 1) {
            return;
        }
        int[] offsets = chunkOffsets(n, k);
        Buffer[] staged = new Buffer[k];
        try {
            for (int i = 0; i < k; i++) {
                staged[i] = buffers.get(i).device().allocate(offsets[1] - offsets[0]); // the longest chunk
            }
            for (int step = 0; step < k - 1; step++) {
                // all devices send at once, then all add what they received, as one step of NCCL's ring does
                for (int i = 0; i < k; i++) {
                    int to = (i + 1) % k;
                    int c = Math.floorMod(i - step - 1, k);
                    int length = offsets[c + 1] - offsets[c];
                    buffers.get(to)
                            .device()
                            .copyFromPeer(buffers.get(i).slice(offsets[c], length), staged[to].slice(0, length));
                }
                for (int i = 0; i < k; i++) {
                    int to = (i + 1) % k;
                    int c = Math.floorMod(i - step - 1, k);
                    int length = offsets[c + 1] - offsets[c];
                    Buffer mine = buffers.get(to).slice(offsets[c], length);
                    buffers.get(to)
                            .device()
                            .commKernels()
                            .launch(new Add(mine, staged[to].slice(0, length), mine, length));
                }
            }
        } finally {
            for (Buffer b : staged) {
                if (b != null) {
                    b.close();
                }
            }
        }
    }

    /**
     * {@code allGather}, in place: device i contributes chunk i of its buffer, and afterwards every buffer holds
     * every device's chunk. On a ring: in step s device i sends chunk (i − s) mod k to device i + 1, which stores
     * it; after k − 1 steps every device holds every chunk.
     */
    public static void allGather(List<Buffer> buffers) {
        int n = checkLengths(buffers);
        int k = buffers.size();
        int[] offsets = chunkOffsets(n, k);
        for (int step = 0; step < k - 1; step++) {
            for (int i = 0; i < k; i++) {
                int to = (i + 1) % k;
                int c = Math.floorMod(i - step, k);
                int length = offsets[c + 1] - offsets[c];
                buffers.get(to)
                        .device()
                        .copyFromPeer(
                                buffers.get(i).slice(offsets[c], length),
                                buffers.get(to).slice(offsets[c], length));
            }
        }
    }

    /** Where chunk c of {@code n} elements over {@code k} devices starts: offsets[c] … offsets[c + 1]. */
    public static int[] chunkOffsets(int n, int k) {
        int[] sizes = Scatter.balancedSizes(n, k);
        int[] offsets = new int[k + 1];
        for (int c = 0; c < k; c++) {
            offsets[c + 1] = offsets[c] + sizes[c];
        }
        return offsets;
    }

    /** The common length of {@code buffers}; rejects unequal ones. */
    static int checkLengths(List<Buffer> buffers) {
        int n = buffers.getFirst().length();
        for (Buffer b : buffers) {
            if (b.length() != n) {
                throw new IllegalArgumentException("collectives need equal lengths, got " + n + " and " + b.length()
                        + " on " + b.device().id());
            }
        }
        return n;
    }
}
