package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.CollectiveCostModel.Collective;
import org.multigpulab.device.Device;
import org.multigpulab.device.KernelOp.Add;

/**
 * How an {@code allReduce} moves the data, a value chosen by configuration ({@code --allreduce}) as NCCL chooses
 * its algorithm ({@code NCCL_ALGO}) without changing what {@code ncclAllReduce} means: whichever is used, every
 * buffer ends holding the sum. Implementations move data only by peer copies, so each device's stats count
 * exactly the bytes it received and sent.
 */
@FunctionalInterface
public interface AllReduceAlgorithm {

    /**
     * Sums {@code buffers} (one per device, in device order, of equal lengths) into every one of them.
     * {@code tensor} numbers the tensors that one training step sums, from 0, in the order it sums them: a
     * parameter's index when every parameter is summed on its own, a bucket's index when gradients travel in
     * buckets. Only {@link #SPREAD} looks at it, to choose its root.
     */
    void allReduce(List<Buffer> buffers, int tensor);

    /** {@link #allReduce(List, int)} of a tensor that is not one of several: tensor 0. */
    default void allReduce(List<Buffer> buffers) {
        allReduce(buffers, 0);
    }

    /**
     * The notebook's: {@link Collectives#reduce} onto device 0, then {@link Collectives#broadcast} from it. Device 0
     * receives and sends (k−1)·S bytes, every other device S.
     */
    AllReduceAlgorithm NAIVE = (buffers, tensor) -> {
        Collectives.reduce(buffers, 0);
        Collectives.broadcast(buffers, 0);
    };

    /**
     * The naive algorithm rooted at device {@code tensor mod k}: parameter i (or bucket i) is summed on device
     * i mod k, so the devices share the work and the traffic (d2l §12.5, exercise 3).
     */
    AllReduceAlgorithm SPREAD = (buffers, tensor) -> {
        int root = tensor % buffers.size();
        Collectives.reduce(buffers, root);
        Collectives.broadcast(buffers, root);
    };

    /**
     * A ring: {@link Collectives#reduceScatter} then {@link Collectives#allGather}, 2(k−1) steps in which every
     * device sends one chunk to its right neighbour and receives one from its left. Each device receives and sends
     * 2(k−1)/k·S bytes (exactly, for k dividing the length): the traffic no longer grows with k.
     */
    AllReduceAlgorithm RING = (buffers, tensor) -> {
        Collectives.reduceScatter(buffers);
        Collectives.allGather(buffers);
    };

    /**
     * A binary tree rooted at device 0 (device i's children are 2i + 1 and 2i + 2): sums flow up, leaves first,
     * then the total flows back down. About 2·log₂k steps of whole buffers: fewer steps than a ring, for small
     * buffers where latency rules, but each inner device receives up to 3·S bytes.
     */
    AllReduceAlgorithm TREE = (buffers, tensor) -> {
        int n = Collectives.checkLengths(buffers);
        int k = buffers.size();
        for (int i = k - 1; i > 0; i--) { // children before parents: reduce upwards
            Buffer parent = buffers.get((i - 1) / 2);
            Device device = parent.device();
            try (Buffer staged = device.allocate(n)) {
                device.copyFromPeer(buffers.get(i), staged);
                device.commKernels().launch(new Add(parent, staged, parent, n));
            }
        }
        for (int i = 1; i < k; i++) { // parents before children: broadcast downwards
            buffers.get(i).device().copyFromPeer(buffers.get((i - 1) / 2), buffers.get(i));
        }
    };

    /**
     * NCCL's {@code ncclAllReduce}: the data moves as {@link #RING}'s, and a timeline with a model of NCCL (the sim
     * backend's) charges the call as NCCL's model says, its algorithm and protocol chosen by size as NCCL chooses
     * them, instead of copy by copy over the links' datasheet figures.
     */
    AllReduceAlgorithm NCCL = (buffers, tensor) ->
            Collectives.asOneNcclCall(Collective.ALL_REDUCE, buffers, () -> RING.allReduce(buffers, tensor));

    /** The algorithm called {@code name} on the command line: naive, spread, ring, tree or nccl. */
    static AllReduceAlgorithm named(String name) {
        return switch (name) {
            case "naive" -> NAIVE;
            case "spread" -> SPREAD;
            case "ring" -> RING;
            case "tree" -> TREE;
            case "nccl" -> NCCL;
            default ->
                throw new IllegalArgumentException(
                        "unknown allreduce algorithm '" + name + "'; choose naive, spread, ring, tree or nccl");
        };
    }
}
