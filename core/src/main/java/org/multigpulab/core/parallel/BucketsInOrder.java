package org.multigpulab.core.parallel;

import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import org.multigpulab.core.autograd.Tensor;

/**
 * Which buckets of gradients are complete, as PyTorch's DDP reducer tracks them during a backward pass: a bucket is
 * complete once every device's backward pass has delivered all of its parameters' gradients, and complete buckets
 * are handed on in their order (a bucket waits for those before it), so that every process sums the same buckets in
 * the same order whatever rows it got. Every parameter must receive one contribution per pass. Not thread-safe.
 */
public final class BucketsInOrder {

    private final List<Replica> replicas;
    private final List<GradientBuckets.Bucket> buckets;
    private final Consumer<GradientBuckets.Bucket> complete;
    private final int[] bucketOf;
    private final int[] waiting;
    private final boolean[][] ready;
    private int next;

    /** {@code buckets} of {@code replicas}' parameters, each handed to {@code complete} in order when complete. */
    public BucketsInOrder(
            List<Replica> replicas, List<GradientBuckets.Bucket> buckets, Consumer<GradientBuckets.Bucket> complete) {
        this.replicas = replicas;
        this.buckets = buckets;
        this.complete = complete;
        int params = replicas.getFirst().params().size();
        this.bucketOf = new int[params];
        buckets.forEach(b -> b.params().forEach(p -> bucketOf[p] = b.index()));
        this.waiting = new int[buckets.size()];
        this.ready = new boolean[replicas.size()][params];
    }

    /** Before a backward pass: every bucket waits for all of its gradients again. */
    public void prepare() {
        for (GradientBuckets.Bucket b : buckets) {
            waiting[b.index()] = b.params().size() * replicas.size();
        }
        for (boolean[] r : ready) {
            Arrays.fill(r, false);
        }
        next = 0;
    }

    /** Device {@code device}'s {@code parameter} has its gradient; the buckets complete by now are handed on. */
    public void ready(int device, Tensor parameter) {
        Replica replica = replicas.get(device);
        int p = replica.params().indexOf(parameter);
        if (ready[device][p]) {
            throw new IllegalStateException(replica.names().get(p) + " received two gradient contributions in one"
                    + " backward pass; summing gradients in buckets needs every parameter used once");
        }
        ready[device][p] = true;
        waiting[bucketOf[p]]--;
        while (next < buckets.size() && waiting[next] == 0) {
            complete.accept(buckets.get(next++));
        }
    }

    /** After the backward passes: every bucket must have been handed on. */
    public void requireAllComplete() {
        if (next < buckets.size()) {
            throw new IllegalStateException("the backward pass left a bucket of gradients incomplete");
        }
    }
}
