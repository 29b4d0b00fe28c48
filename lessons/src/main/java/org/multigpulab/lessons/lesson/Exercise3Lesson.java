package org.multigpulab.lessons.lesson;

import java.util.ArrayList;
import java.util.List;
import org.multigpulab.core.parallel.AllReduceAlgorithm;
import org.multigpulab.core.train.TrainingListener;
import org.multigpulab.device.Device;

/**
 * d2l §12.5 exercise 3: an allreduce that sums different parameters on different GPUs. Why is it faster? The
 * bytes each device receives, measured for both.
 */
public final class Exercise3Lesson implements Lesson {

    /** Bytes each device received from its peers over the run, and the run's wall seconds per epoch. */
    public record Traffic(String algorithm, List<Long> bytesReceived, double secPerEpoch) {

        public long max() {
            return bytesReceived.stream().mapToLong(Long::longValue).max().orElse(0);
        }

        public long total() {
            return bytesReceived.stream().mapToLong(Long::longValue).sum();
        }
    }

    @Override
    public String name() {
        return "exercise-3";
    }

    @Override
    public String summary() {
        return "allreduce on different GPUs for different parameters, and the ring: the traffic spreads over the devices";
    }

    public Traffic measure(LessonContext ctx, String name, AllReduceAlgorithm allReduce) {
        List<Long> received = new ArrayList<>();
        var result = ctx.train(
                ctx.gpusToCompare(4),
                LessonContext.recipe(ctx.epochs(1), ctx.batchSize(), 0.2f).withAllReduce(allReduce),
                new TrainingListener() {},
                trainer -> {
                    for (Device d : trainer.devices()) {
                        received.add(d.stats().bytesFromPeers());
                    }
                });
        return new Traffic(name, List.copyOf(received), result.secPerEpoch());
    }

    @Override
    public void run(LessonContext ctx) {
        Traffic naive = measure(ctx, "all on device 0", AllReduceAlgorithm.NAIVE);
        Traffic spread = measure(ctx, "parameter i on device i mod k", AllReduceAlgorithm.SPREAD);
        Traffic ring = measure(ctx, "ring (every tensor in k chunks)", AllReduceAlgorithm.RING);
        report(ctx, naive, spread, ring);
    }

    /** The same bytes cross the links with all three: naive's and the ring's totals, to 0.1 MB. */
    static Claim sameTotal(Traffic naive, Traffic ring) {
        return Claim.same("MB received in all, naive vs ring", naive.total() / 1e6, ring.total() / 1e6, 0.1, 1);
    }

    /** Summing parameter i on device i mod k takes load off the busiest device. */
    static Claim spreadHelps(Traffic naive, Traffic spread) {
        return Claim.ratioAbove("busiest device's MB, naive over spread", naive.max() / 1e6, spread.max() / 1e6, 1)
                .and(
                        ": no single device receives (k-1) copies of everything, and on real GPUs the reductions run"
                                + " at once on different devices and links, so the busiest finishes sooner.",
                        ": spreading whole parameters did not take load off the busiest device.");
    }

    /** The ring, every tensor in k chunks, balances better than whole parameters. */
    static Claim ringBalances(Traffic spread, Traffic ring) {
        return Claim.ratioAbove("busiest device's MB, spread over ring", spread.max() / 1e6, ring.max() / 1e6, 1)
                .and(
                        ": W3 is most of the gradient, so whole parameters balance poorly; chunks of every tensor"
                                + " give every device the same share.",
                        ": whole parameters balanced as well as chunks here.");
    }

    /** The three conclusions from the runs of {@link #measure}. */
    public void report(LessonContext ctx, Traffic naive, Traffic spread, Traffic ring) {
        for (Traffic t : List.of(naive, spread, ring)) {
            ctx.out()
                    .printf(
                            "%-32s MB received per device %s, total %.1f MB, busiest %.1f MB; %.1f wall sec/epoch%n",
                            t.algorithm(),
                            t.bytesReceived().stream()
                                    .map(b -> String.format("%.1f", b / 1e6))
                                    .toList(),
                            t.total() / 1e6,
                            t.max() / 1e6,
                            t.secPerEpoch());
        }
        ctx.out().println(sameTotal(naive, ring).text());
        ctx.out().println(spreadHelps(naive, spread).text());
        ctx.out().println(ringBalances(spread, ring).notice());
    }
}
