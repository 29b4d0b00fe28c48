package org.multigpulab.core.parallel;

import java.util.List;
import org.multigpulab.device.Buffer;
import org.multigpulab.device.Device;

/**
 * Collective operations over one buffer per device, named and defined as in NCCL: {@code allReduce} leaves the
 * sum in every buffer, {@code reduceScatter} leaves chunk i of the sum on device i, {@code allGather} gives
 * every device every device's chunk, {@code broadcast} copies one device's buffer to all. Chunks split a buffer
 * as {@link Scatter#shardSizes} splits rows: the first {@code n % k} chunks one element longer. The buffers
 * must have equal lengths and live on distinct devices; data moves only by peer copies, so each device's
 * stats count exactly the bytes it received (and, on {@code sim}, sent).
 */
public final class Collectives {

    private Collectives() {
    }

    /**
     * {@code allReduce} with the seed's naive algorithm: add every device's buffer onto device 0, then copy the
     * sum back into every other device's buffer. Device 0 receives and sends (k−1)·S bytes, the others S each.
     *
     * <p>The seed's Python rebinds {@code data[i]} to the copy instead of writing into it, so with gradients the
     * replicas other than 0 never see the sum; here the sum is written into each buffer.
     */
    public static void allReduce(List<Buffer> data) {
        allReduce(data, 0);
    }

    /**
     * The naive {@code allReduce} with the sum gathered on device {@code rootIndex} instead of device 0: spreading
     * the roots of different buffers over the devices spreads the work and the traffic (d2l §12.5, exercise 3).
     */
    public static void allReduce(List<Buffer> data, int rootIndex) {
        int n = checkLengths(data);
        Buffer root = data.get(rootIndex);
        Device rootDevice = root.device();
        if (data.size() == 1) {
            return;
        }
        try (Buffer staged = rootDevice.allocate(n)) {
            for (Buffer other : data) {
                if (other != root) {
                    rootDevice.copyFromPeer(other, staged);              // data[i].to(data[0].device)
                    rootDevice.commKernels().add(root, staged, root, n);     // data[0][:] += ...
                }
            }
        }
        broadcast(data, rootIndex);                                      // data[i][:] = data[0].to(data[i].device)
    }

    /** {@code broadcast}: {@code data[root]} copied into every other buffer, straight from the root. */
    public static void broadcast(List<Buffer> data, int rootIndex) {
        checkLengths(data);
        Buffer root = data.get(rootIndex);
        for (Buffer other : data) {
            if (other != root) {
                other.device().copyFromPeer(root, other);
            }
        }
    }

    /**
     * {@code allReduce} as a ring: {@link #reduceScatter} then {@link #allGather}, 2(k−1) steps in which every
     * device sends one chunk to its right neighbour and receives one from its left. Each device receives and
     * sends 2(k−1)/k·S bytes (exactly, for k dividing the length): the traffic no longer grows with k.
     */
    public static void ringAllReduce(List<Buffer> data) {
        reduceScatter(data);
        allGather(data);
    }

    /**
     * {@code reduceScatter} on a ring: in step s device i sends chunk (i − s − 1) mod k to device i + 1, which adds
     * it to its own copy of that chunk; after k − 1 steps device i holds the sum of chunk i.
     */
    public static void reduceScatter(List<Buffer> data) {
        int n = checkLengths(data);
        int k = data.size();
        if (k == 1) {
            return;
        }
        int[] offsets = chunkOffsets(n, k);
        Buffer[] staged = new Buffer[k];
        try {
            for (int i = 0; i < k; i++) {
                staged[i] = data.get(i).device().allocate(offsets[1] - offsets[0]);   // the longest chunk
            }
            for (int step = 0; step < k - 1; step++) {
                // all devices send at once, then all add what they received, as one step of NCCL's ring does
                for (int i = 0; i < k; i++) {
                    int to = (i + 1) % k;
                    int c = Math.floorMod(i - step - 1, k);
                    int length = offsets[c + 1] - offsets[c];
                    data.get(to).device().copyFromPeer(data.get(i).slice(offsets[c], length),
                            staged[to].slice(0, length));
                }
                for (int i = 0; i < k; i++) {
                    int to = (i + 1) % k;
                    int c = Math.floorMod(i - step - 1, k);
                    int length = offsets[c + 1] - offsets[c];
                    Buffer mine = data.get(to).slice(offsets[c], length);
                    data.get(to).device().commKernels().add(mine, staged[to].slice(0, length), mine, length);
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
     * {@code allGather} on a ring: device i starts with chunk i; in step s it sends chunk (i − s) mod k to device
     * i + 1, which stores it; after k − 1 steps every device holds every chunk.
     */
    public static void allGather(List<Buffer> data) {
        int n = checkLengths(data);
        int k = data.size();
        int[] offsets = chunkOffsets(n, k);
        for (int step = 0; step < k - 1; step++) {
            for (int i = 0; i < k; i++) {
                int to = (i + 1) % k;
                int c = Math.floorMod(i - step, k);
                int length = offsets[c + 1] - offsets[c];
                data.get(to).device().copyFromPeer(data.get(i).slice(offsets[c], length),
                        data.get(to).slice(offsets[c], length));
            }
        }
    }

    /**
     * {@code allReduce} on a binary tree rooted at device 0 (device i's children are 2i + 1 and 2i + 2): sums flow
     * up, leaves first, then the total flows back down. About 2·log₂k steps of whole buffers: fewer steps than a
     * ring, for small buffers where latency rules, but each inner device receives up to 3·S bytes.
     */
    public static void treeAllReduce(List<Buffer> data) {
        int n = checkLengths(data);
        int k = data.size();
        for (int i = k - 1; i > 0; i--) {            // children before parents: reduce upwards
            Buffer parent = data.get((i - 1) / 2);
            Device device = parent.device();
            try (Buffer staged = device.allocate(n)) {
                device.copyFromPeer(data.get(i), staged);
                device.commKernels().add(parent, staged, parent, n);
            }
        }
        for (int i = 1; i < k; i++) {                // parents before children: broadcast downwards
            data.get(i).device().copyFromPeer(data.get((i - 1) / 2), data.get(i));
        }
    }

    /** Where chunk c of {@code n} elements over {@code k} devices starts: offsets[c] … offsets[c + 1]. */
    public static int[] chunkOffsets(int n, int k) {
        int[] offsets = new int[k + 1];
        for (int c = 0; c < k; c++) {
            offsets[c + 1] = offsets[c] + n / k + (c < n % k ? 1 : 0);
        }
        return offsets;
    }

    private static int checkLengths(List<Buffer> data) {
        int n = data.getFirst().length();
        for (Buffer b : data) {
            if (b.length() != n) {
                throw new IllegalArgumentException("collectives need equal lengths, got " + n + " and " + b.length()
                        + " on " + b.device().id());
            }
        }
        return n;
    }
}
