package org.multigpulab.core.parallel;

import java.util.ArrayList;
import java.util.List;

/**
 * Gradients grouped into buckets of at most a given size, as PyTorch's DDP groups them: in the order the
 * backward pass produces them (last parameter first), each bucket a contiguous range of
 * {@link Replica#gradients()}, at least one parameter per bucket. A bucket is summed over the devices as soon
 * as all of its gradients are ready on every device, while the backward pass goes on.
 */
public final class GradientBuckets {

    /** One bucket: where it lies in the gradients buffer, and which parameters it holds. */
    public record Bucket(int index, int offset, int length, List<Integer> params) {}

    private GradientBuckets() {}

    /** Buckets of at most {@code capBytes} (but never less than one parameter) over {@code replica}'s gradients. */
    public static List<Bucket> plan(Replica replica, long capBytes) {
        if (capBytes <= 0) {
            throw new IllegalArgumentException("a bucket must hold more than 0 bytes, not " + capBytes);
        }
        List<Bucket> buckets = new ArrayList<>();
        List<Integer> params = new ArrayList<>();
        int offset = 0, length = 0;
        for (int p = replica.params().size() - 1; p >= 0; p--) {
            int size = replica.params().get(p).size();
            if (!params.isEmpty() && (long) (length + size) * Float.BYTES > capBytes) {
                buckets.add(new Bucket(buckets.size(), offset, length, List.copyOf(params)));
                offset += length;
                length = 0;
                params.clear();
            }
            params.add(p);
            length += size;
        }
        buckets.add(new Bucket(buckets.size(), offset, length, List.copyOf(params)));
        return List.copyOf(buckets);
    }
}
