package org.multigpulab.backend.sim;

import java.util.function.DoubleToIntFunction;

/**
 * What NCCL's topology search ({@code src/graph/search.cc}, NCCL 2.21.5) finds for a communicator: {@code channels}
 * rings, each carrying {@code speed} GB/s. The search tries per-channel speeds from a fixed list, the fastest the
 * paths allow first, and at each finds as many rings as the links carry; it keeps the most bandwidth in all, stops
 * at the node's total or when the next speed falls under half the best; then it doubles fast channels at half
 * their speed, and tries the same number of channels at higher speeds.
 */
record NcclGraph(int channels, double speed) {

    /** Speeds a search within one node tries ({@code speedArrayIntra}, and {@code sm90SpeedArrayIntra}). */
    private static final double[] INTRA = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};

    private static final double[] INTRA_SM90 = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
    /** Speeds a search across nodes tries ({@code speedArrayInter}, {@code sm90SpeedArrayInter}). */
    private static final double[] INTER = {48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, .24, .12};

    private static final double[] INTER_SM90 = {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, .24, .12};
    /** A ring search asks for at most half of MAXCHANNELS (init.cc). */
    static final int MAX_SEARCH_CHANNELS = NcclTuning.MAX_CHANNELS / 2;

    /** The bandwidth NCCL's tuning model gives all the channels together: its ring "busBw". */
    double busBw() {
        return channels * speed;
    }

    /**
     * The rings of {@code gpus} GPUs per node over {@code fabric}, across {@code nodes} nodes with {@code nics}
     * network cards of {@code nicBw} GB/s each (unused on one node).
     */
    static NcclGraph rings(
            Fabric fabric, int gpus, NcclFigures f, int computeCapability, int nodes, int nics, double nicBw) {
        boolean net = nodes > 1;
        double nicPath = nicPath(fabric, f, nicBw);
        DoubleToIntFunction carried = speed -> {
            int limit = net
                    ? Math.min(MAX_SEARCH_CHANNELS, nics * (int) Math.floor(nicPath / speed + 1e-9))
                    : MAX_SEARCH_CHANNELS;
            return gpus == 1 ? limit : fabric.channelsAt(speed, gpus, f, computeCapability, limit);
        };
        double maxBw = net ? nicPath : fabric.maxBw(gpus, f, computeCapability);
        double totalBw = fabric.totalBw(f, computeCapability);
        return search(speeds(net, computeCapability), carried, maxBw, totalBw, computeCapability);
    }

    /** What one network card carries for a GPU, GB/s: the path from a GPU to its card crosses the GPU's PCIe link. */
    static double nicPath(Fabric fabric, NcclFigures f, double nicBw) {
        return Math.min(nicBw, fabric.pciBw(f));
    }

    /**
     * The NVLS search ({@code NCCL_TOPO_PATTERN_NVLS}): one channel per GPU, at the fastest speed of the list all
     * of them fit in a GPU's NVLinks.
     */
    static NcclGraph nvls(Fabric fabric, int gpus, NcclFigures f, int computeCapability) {
        double total = fabric.totalBw(f, computeCapability);
        for (double s : INTRA_SM90) {
            if (gpus * s <= total) {
                return new NcclGraph(gpus, s);
            }
        }
        return new NcclGraph(gpus, INTRA_SM90[INTRA_SM90.length - 1]);
    }

    /**
     * A tree's speed within the node: across two nodes NCCL's search raises it while it stays under twice the
     * speed between the nodes and the links carry the channels at it (each node's data crosses the network once,
     * not twice as in a ring); otherwise the rings' speed.
     */
    static double treeSpeed(NcclGraph rings, Fabric fabric, int gpus, NcclFigures f, int computeCapability, int nodes) {
        if (nodes != 2) {
            return rings.speed;
        }
        double best = rings.speed;
        for (double s : speeds(true, computeCapability)) {
            if (s > best
                    && s <= 2 * rings.speed
                    && (gpus == 1
                            || fabric.channelsAt(s, gpus, f, computeCapability, rings.channels) >= rings.channels)) {
                best = s;
            }
        }
        return best;
    }

    private static double[] speeds(boolean net, int computeCapability) {
        boolean sm90 = computeCapability >= 90;
        return net ? (sm90 ? INTER_SM90 : INTER) : (sm90 ? INTRA_SM90 : INTRA);
    }

    static NcclGraph search(
            double[] speeds, DoubleToIntFunction carried, double maxBw, double totalBw, int computeCapability) {
        int i = 0;
        while (i < speeds.length - 1 && (speeds[i] > maxBw || speeds[i] > totalBw)) {
            i++;
        }
        NcclGraph best = null;
        while (true) {
            int n = Math.min(MAX_SEARCH_CHANNELS, carried.applyAsInt(speeds[i]));
            if (n >= 1 && (best == null || n * speeds[i] > best.busBw())) {
                best = new NcclGraph(n, speeds[i]);
            }
            if (best != null && best.busBw() >= totalBw) {
                break;
            }
            if (i < speeds.length - 1 && (best == null || speeds[i + 1] / best.speed > .49)) {
                i++;
            } else {
                break;
            }
        }
        if (best == null) {
            // NCCL falls back to one ring in GPU order at 0.1 GB/s
            return new NcclGraph(1, 0.1);
        }
        best = best.duplicated(computeCapability);
        // pass 2: the same channels, faster
        int j = 0;
        while (j < speeds.length && speeds[j] > best.speed) {
            j++;
        }
        while (j > 0 && speeds[j - 1] <= maxBw && carried.applyAsInt(speeds[j - 1]) >= best.channels) {
            best = new NcclGraph(best.channels, speeds[--j]);
        }
        return best;
    }

    /** ncclTopoDupChannels: fast channels twice over at half speed, except Hopper's many below 50 GB/s. */
    private NcclGraph duplicated(int computeCapability) {
        if (speed < 25 || (computeCapability > 80 && speed < 50 && channels > 4)) {
            return this;
        }
        int doubled = Math.min(2 * channels, MAX_SEARCH_CHANNELS);
        int factor = (doubled + channels - 1) / channels;
        return new NcclGraph(doubled, speed / factor);
    }
}
