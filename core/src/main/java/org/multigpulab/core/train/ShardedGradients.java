package org.multigpulab.core.train;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.autograd.Ops;
import org.multigpulab.core.autograd.Tensor;
import org.multigpulab.core.parallel.BucketsInOrder;
import org.multigpulab.core.parallel.FlatShards;
import org.multigpulab.core.parallel.GradientBuckets;
import org.multigpulab.core.parallel.Replica;
import org.multigpulab.device.Buffer;

/**
 * The gradients of ZeRO stages 2 and 3, as DeepSpeed's stage 2 keeps them: in buckets (contiguous ranges of the
 * flattened parameters, {@link GradientBuckets}) that a device allocates when the backward pass first writes into
 * them, reduce-scattered as soon as every device has the whole bucket, each device then copying the part it owns
 * into its chunk of the summed gradients, and freed. Between steps a device holds its chunk only; during a step, the
 * buckets under way. Every parameter must receive one contribution per pass. Not thread-safe.
 */
final class ShardedGradients implements AutoCloseable {

    private final List<Replica> replicas;
    private final FlatShards shards;
    private final List<GradientBuckets.Bucket> buckets;
    private final int[] bucketOf;
    /** Per device, per bucket: its storage while the bucket is under way, else null. */
    private final Buffer[][] storage;

    private final BucketsInOrder complete;
    /** Per device: its chunk of the summed gradients. */
    private final List<Buffer> own = new ArrayList<>();

    ShardedGradients(List<Replica> replicas, FlatShards shards, long bucketBytes) {
        this.replicas = replicas;
        this.shards = shards;
        this.buckets = GradientBuckets.plan(replicas.getFirst(), bucketBytes);
        int params = replicas.getFirst().params().size();
        this.bucketOf = new int[params];
        buckets.forEach(b -> b.params().forEach(p -> bucketOf[p] = b.index()));
        this.storage = new Buffer[replicas.size()][buckets.size()];
        this.complete = new BucketsInOrder(replicas, buckets, this::reduceScatter);
        for (int d = 0; d < replicas.size(); d++) {
            Replica r = replicas.get(d);
            own.add(r.device().allocate(shards.length(d)));
            for (int p = 0; p < params; p++) {
                onDemand(d, p);
            }
        }
    }

    /** Device {@code d}'s chunk of the summed gradients, which the optimizer reads. */
    Buffer own(int d) {
        return own.get(d);
    }

    /** Parameter {@code p} of device {@code d} without gradient storage: its bucket's, when a pass first needs it. */
    private void onDemand(int d, int p) {
        Tensor t = replicas.get(d).params().get(p);
        t.releaseGradient(() -> {
            GradientBuckets.Bucket b = buckets.get(bucketOf[p]);
            Replica r = replicas.get(d);
            Buffer all = r.device().allocate(b.length());
            storage[d][b.index()] = all;
            for (int q : b.params()) {
                int at = r.offset(q) - b.offset();
                r.params().get(q).bindGradient(all.slice(at, r.params().get(q).size()));
            }
            return all.slice(r.offset(p) - b.offset(), t.size());
        });
    }

    /** Before the backward passes whose gradients are to be summed: every bucket waits for all of them again. */
    void prepareForBackward() {
        complete.prepare();
    }

    /**
     * Device {@code d}'s parameter {@code parameter} has its gradient: its bucket is reduce-scattered once all
     * devices have it and the buckets before it are ({@link BucketsInOrder}).
     */
    void gradientReady(int d, Tensor parameter) {
        complete.ready(d, parameter);
    }

    private void reduceScatter(GradientBuckets.Bucket b) {
        List<Buffer> pieces = new ArrayList<>();
        for (int d = 0; d < replicas.size(); d++) {
            pieces.add(storage[d][b.index()]);
        }
        shards.reduceScatter(pieces, b.offset());
        for (int d = 0; d < replicas.size(); d++) {
            int[] mine = shards.ownedWithin(d, b.offset(), b.length());
            if (mine[1] > 0) {
                Ops.copy(
                        replicas.get(d).device().kernels(),
                        pieces.get(d).slice(mine[0] - b.offset(), mine[1]),
                        own.get(d).slice(mine[0] - shards.offset(d), mine[1]),
                        mine[1]);
            }
            pieces.get(d).close();
            storage[d][b.index()] = null;
            int device = d;
            b.params().forEach(p -> onDemand(device, p));
        }
    }

    /** After the step's backward passes: every bucket must have been summed. */
    void synchronize() {
        complete.requireAllComplete();
    }

    @Override
    public void close() {
        for (Buffer[] device : storage) {
            for (Buffer b : device) {
                if (b != null) {
                    b.close();
                }
            }
        }
        own.forEach(Buffer::close);
    }
}
