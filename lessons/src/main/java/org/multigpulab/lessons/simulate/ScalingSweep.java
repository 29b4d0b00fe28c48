package org.multigpulab.lessons.simulate;

import java.util.ArrayList;
import java.util.List;

/**
 * Weak scaling as DDP is run: the same training, each GPU with the same batch, on 1, 2, 4, … GPUs up to a system's
 * size, a node's GPUs filled before the next node is taken; for each, the simulated seconds per step and the scaling
 * efficiency, the throughput at N GPUs over N times the throughput at one.
 */
public final class ScalingSweep {

    /** One system size ({@code description} as the sim backend names it): its step time, throughput, and efficiency. */
    public record Point(
            String description, int gpus, int nodes, int batchPerGpu, double secPerIteration, double efficiency) {

        public double imagesPerSec() {
            return gpus * batchPerGpu / secPerIteration;
        }
    }

    private ScalingSweep() {}

    /** The GPU counts: powers of two below {@code gpus}, then {@code gpus}. */
    public static List<Integer> counts(int gpus) {
        List<Integer> counts = new ArrayList<>();
        for (int k = 1; k < gpus; k *= 2) {
            counts.add(k);
        }
        counts.add(gpus);
        return counts;
    }

    /**
     * {@code largest}'s training at each of {@link #counts} of its GPUs, nodes of its {@code gpusPerNode()} GPUs
     * (a count beyond one node must fill whole nodes).
     */
    public static List<Point> run(TimeOnlyEpoch.Setup largest) {
        int perNode = largest.gpusPerNode();
        List<Point> points = new ArrayList<>();
        double one = 0;
        for (int k : counts(largest.gpus())) {
            int nodes = Math.ceilDiv(k, perNode);
            TimeOnlyEpoch.Setup setup = largest.on(k, nodes);
            TimeOnlyEpoch.Result r = TimeOnlyEpoch.run(setup, null);
            double sec = r.secPerIteration();
            one = k == 1 ? sec : one;
            points.add(new Point(r.description(), k, nodes, setup.batchPerGpu(), sec, one / sec));
        }
        return List.copyOf(points);
    }
}
