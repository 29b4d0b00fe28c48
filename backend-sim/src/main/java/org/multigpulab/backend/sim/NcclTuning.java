package org.multigpulab.backend.sim;

/**
 * The figures NCCL 2.21.5 uses to choose an algorithm and protocol ({@code src/graph/tuning.cc}) and how many
 * channels and threads it gives a collective ({@code src/enqueue.cc}, {@code src/include/comm.h},
 * {@code src/include/device.h}). LL sends 4 bytes of flag with every 4 of data and polls; LL128 sends 8 of flag in
 * 128; Simple sends whole chunks behind one flag, paying a higher latency per step.
 */
final class NcclTuning {

    enum Algorithm {
        RING,
        TREE,
        /** NVLink SHARP: the NVSwitch adds (NCCL's NVLS), on one node. */
        NVLS,
        /** NVLink SHARP within each node and a tree of the nodes between them (NCCL's NVLSTree). */
        NVLS_TREE
    }

    enum Protocol {
        LL,
        LL128,
        SIMPLE
    }

    enum Hop {
        NVLINK,
        PCI,
        NET
    }

    /** The rows of NCCL's per-generation tables: compute capability below 8.0, below 9.0, and from 9.0 on. */
    enum Generation {
        VOLTA,
        AMPERE,
        HOPPER;

        static Generation of(int computeCapability) {
            return computeCapability >= 90 ? HOPPER : computeCapability >= 80 ? AMPERE : VOLTA;
        }
    }

    /** MAXCHANNELS (device.h): the most channels a communicator runs; a ring search asks for half of them. */
    static final int MAX_CHANNELS = 32;

    private NcclTuning() {}

    /** baseLat, µs: tree {6.8, 14.0, 0}, ring {6.6, 14.0, 8.4}; NVLS has none of its own. */
    static double baseMicros(Algorithm a, Protocol p) {
        double[] tree = {6.8, 14.0, 0}, ring = {6.6, 14.0, 8.4};
        return switch (a) {
            case TREE -> tree[p.ordinal()];
            case RING -> ring[p.ordinal()];
            case NVLS, NVLS_TREE -> 0;
        };
    }

    /** hwLat, µs: one step of {@code a} with {@code p} over {@code hop}. */
    static double hopMicros(Hop hop, Algorithm a, Protocol p) {
        double[][] tree = {{.6, 1.25, 28}, {1.0, 1.9, 28}, {5.0, 8.5, 28}};
        double[][] ring = {{.6, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 14.0}};
        double[] nvls = {25, 0, 18}, nvlsTree = {25, 0, 14};
        return switch (a) {
            case TREE -> tree[hop.ordinal()][p.ordinal()];
            case RING -> ring[hop.ordinal()][p.ordinal()];
            case NVLS -> nvls[hop.ordinal()];
            case NVLS_TREE -> nvlsTree[hop.ordinal()];
        };
    }

    /** The tables' column: one node, two nodes, more. */
    private static int nodesIndex(int nodes) {
        return nodes <= 2 ? nodes - 1 : 2;
    }

    /**
     * llMaxBws, GB/s: LL's ceiling. One node by GPU generation; across nodes by processor (Intel's row, the
     * first: the systems measured here are Intel or unnamed).
     */
    static double llMaxBw(Generation g, int nodes) {
        double[][] bws = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}};
        return bws[nodes == 1 ? g.ordinal() : 0][nodesIndex(nodes)];
    }

    /** perChMaxRingLL128Bws, GB/s per channel. */
    static double ringLl128PerChannel(Generation g) {
        return g == Generation.HOPPER ? 36.7 : 20.0;
    }

    /** perChMaxTreeLL128Bws, GB/s per channel. */
    static double treeLl128PerChannel(Generation g, int nodes) {
        return g == Generation.HOPPER ? (nodes > 2 ? 29.0 : 36.7) : 20.0;
    }

    /** perChMaxTreeBws, GB/s per channel. */
    static double treePerChannel(Generation g, int nodes) {
        double[][] bws = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}};
        return bws[g.ordinal()][nodesIndex(nodes)];
    }

    /**
     * treeCorrectionFactor: NCCL's correction of the tree's bandwidth at medium sizes, per protocol, for sizes
     * 64 B × 2^i, i < 23; 1 from 512 MB on.
     */
    static double treeCorrection(Protocol p, long bytes) {
        double[][] factors = {
            {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
            {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
            {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}
        };
        int log = log2(bytes >> 6);
        return log < 23 ? factors[p.ordinal()][log] : 1.0;
    }

    /** The ring's "plateau effect" across nodes: Simple all-reduce latency × 1.9 before Ampere, × 1.4 after. */
    static double ringPlateau(Generation g) {
        return g == Generation.VOLTA ? 1.9 : 1.4;
    }

    /**
     * Threads per channel NCCL starts from (maxThreads, device.h): LL 512, LL128 640, Simple 512 (256 for a ring
     * whose channels together carry no more than PCIe 3's 12 GB/s).
     */
    static int maxThreads(Algorithm a, Protocol p, double ringBusBw) {
        return switch (p) {
            case LL -> 512;
            case LL128 -> 640;
            case SIMPLE -> a == Algorithm.RING && ringBusBw <= 12.0 ? 256 : 512;
        };
    }

    /**
     * Bytes per thread below which NCCL takes away channels, then threads (threadThresholds, comm.h): LL 8 (× the
     * ranks for a ring), LL128 8, Simple 64.
     */
    static long threadThreshold(Algorithm a, Protocol p, int ranks) {
        return switch (p) {
            case LL -> a == Algorithm.RING ? 8L * ranks : 8;
            case LL128 -> 8;
            case SIMPLE -> 64;
        };
    }

    /**
     * The channels a collective of {@code bytes} runs on (getChannnelThreadInfo): one fewer while the bytes are
     * fewer than channels × threads × threshold, down to one.
     */
    static int channelsFor(long bytes, int channels, int threads, long threshold) {
        int nc = channels;
        while (nc > 1 && bytes < (long) nc * threads * threshold) {
            nc--;
        }
        return nc;
    }

    /** ⌊log₂ v⌋, 0 for v ≤ 1, as NCCL's {@code log2i}. */
    static int log2(long v) {
        return v <= 1 ? 0 : 63 - Long.numberOfLeadingZeros(v);
    }
}
