package org.multigpulab.core.parallel;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;
import org.multigpulab.core.autograd.Tensor;

/**
 * Gradients grouped into buckets, in the order the backward pass produces them (last parameter first), each bucket
 * a contiguous range of {@link Replica#gradients()} of at least one parameter. A bucket is summed over the devices
 * as soon as all of its gradients are ready on every device, while the backward pass goes on.
 */
public final class GradientBuckets {

    /**
     * DDP's first bucket: 1 MiB ({@code dist._DEFAULT_FIRST_BUCKET_BYTES}, {@code kDefaultFirstBucketBytes = int(1024
     * * 1024)} in torch/csrc/distributed/c10d/reducer.hpp, PyTorch v2.4), so that the last layers' gradients start
     * their allreduce early instead of waiting in a bucket of 25 MiB.
     */
    public static final long DDP_FIRST_BUCKET_BYTES = 1L << 20;

    /** DDP's {@code bucket_cap_mb} by default: 25 MiB (torch/nn/parallel/distributed.py, PyTorch v2.4). */
    public static final double DDP_DEFAULT_CAP_MIB = 25;

    /** One bucket: where it lies in the gradients buffer, and which parameters it holds. */
    public record Bucket(int index, int offset, int length, List<Integer> params) {}

    private GradientBuckets() {}

    /**
     * Buckets of at most {@code capBytes} (but never less than one parameter) over {@code replica}'s gradients: a
     * bucket is closed before the parameter that would take it past the cap (ZeRO's units of sharding).
     */
    public static List<Bucket> plan(Replica replica, long capBytes) {
        requirePositive(capBytes);
        return assign(sizes(replica), b -> capBytes, false);
    }

    /**
     * DDP's buckets, as its {@code Reducer} builds them (torch/csrc/distributed/c10d/reducer.cpp, PyTorch v2.4:
     * {@code compute_bucket_assignment_by_size} called by {@code Reducer::rebuild_buckets} with the limits
     * {@code [first_bucket_bytes, bucket_bytes_cap]}): the parameters in the reverse of their order (the order the
     * backward pass makes their gradients, which DDP records after its first step and this model follows), each
     * added to the bucket under way, which is closed as soon as it holds its limit or more (so a bucket may pass its
     * limit by its last parameter); the first bucket's limit {@link #DDP_FIRST_BUCKET_BYTES}, every later one's
     * {@code capBytes} ({@code int(bucket_cap_mb * 1024 * 1024)}).
     */
    public static List<Bucket> ddp(Replica replica, long capBytes) {
        return ddp(sizes(replica), capBytes);
    }

    /** {@link #ddp(Replica, long)} over parameters of {@code sizes} elements, in their order. */
    public static List<Bucket> ddp(int[] sizes, long capBytes) {
        requirePositive(capBytes);
        return assign(sizes, b -> b == 0 ? DDP_FIRST_BUCKET_BYTES : capBytes, true);
    }

    private static int[] sizes(Replica replica) {
        return replica.params().stream().mapToInt(Tensor::size).toArray();
    }

    /**
     * The parameters, last first, into buckets, bucket {@code b}'s limit {@code limit(b)}: closed once it holds its
     * limit or more ({@code closeWhenFull}), else before the parameter that would take it past its limit.
     */
    private static List<Bucket> assign(int[] sizes, IntToLongFunction limit, boolean closeWhenFull) {
        List<Bucket> buckets = new ArrayList<>();
        List<Integer> params = new ArrayList<>();
        int offset = 0, length = 0;
        for (int p = sizes.length - 1; p >= 0; p--) {
            int size = sizes[p];
            long cap = limit.applyAsLong(buckets.size());
            if (!closeWhenFull && !params.isEmpty() && (long) (length + size) * Float.BYTES > cap) {
                offset = close(buckets, params, offset, length);
                length = 0;
            }
            params.add(p);
            length += size;
            if (closeWhenFull && (long) length * Float.BYTES >= cap) {
                offset = close(buckets, params, offset, length);
                length = 0;
            }
        }
        if (!params.isEmpty()) {
            close(buckets, params, offset, length);
        }
        return List.copyOf(buckets);
    }

    /** Adds the bucket of {@code params}, {@code length} elements from {@code offset}, and empties them; where the next begins. */
    private static int close(List<Bucket> buckets, List<Integer> params, int offset, int length) {
        buckets.add(new Bucket(buckets.size(), offset, length, List.copyOf(params)));
        params.clear();
        return offset + length;
    }

    private static void requirePositive(long capBytes) {
        if (capBytes <= 0) {
            throw new IllegalArgumentException("a bucket must hold more than 0 bytes, not " + capBytes);
        }
    }
}
