package org.multigpulab.backend.sim;

/**
 * The figures NCCL uses to choose an algorithm and protocol, from NCCL 2.8's {@code src/graph/tuning.cc}: a base
 * latency per algorithm and protocol, a latency per hop over NVLink, PCIe or the network, and the share of the
 * link bandwidth each protocol delivers. LL sends 4 bytes of flag with every 4 of data and polls; LL128 sends
 * 8 of flag in 128; Simple sends whole chunks behind one flag, paying a higher latency per step.
 */
final class NcclTuning {

    enum Algorithm {
        RING,
        TREE,
        /** NVLink SHARP: the NVSwitch adds; across nodes, a tree of the nodes (NCCL's NVLS and NVLSTree). */
        NVLS
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

    private NcclTuning() {}

    /** Base latency in µs of {@code a} with {@code p}: tree {4.4, 4.4, 0}, ring {3.6, 10.0, 8.4}. */
    static double baseMicros(Algorithm a, Protocol p) {
        double[] tree = {4.4, 4.4, 0}, ring = {3.6, 10.0, 8.4};
        return (a == Algorithm.TREE ? tree : ring)[p.ordinal()];
    }

    /** Latency in µs of one step of {@code a} with {@code p} over {@code hop}. */
    static double hopMicros(Hop hop, Algorithm a, Protocol p) {
        double[][] tree = {{.52, 1.2, 28}, {1.0, 1.9, 28}, {5.0, 8.5, 50}};
        double[][] ring = {{.47, 1.9, 3.4}, {1.0, 2.5, 5.7}, {2.7, 4.0, 9.6}};
        return (a == Algorithm.TREE ? tree : ring)[hop.ordinal()][p.ordinal()];
    }

    /**
     * NCCL's correction of the tree's bandwidth at medium sizes, per protocol, for sizes 64 B × 2^i, i < 22; 1
     * from 256 MB on.
     */
    static double treeCorrection(Protocol p, long bytes) {
        double[][] factors = {
            {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0},
            {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .5, .6, .6, .7, .7, .8, .9, .9, 1.0},
            {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9}
        };
        int log = log2(bytes >> 6);
        return log < 22 ? factors[p.ordinal()][log] : 1.0;
    }

    /** ⌊log₂ v⌋, 0 for v ≤ 1, as NCCL's {@code log2i}. */
    static int log2(long v) {
        return v <= 1 ? 0 : 63 - Long.numberOfLeadingZeros(v);
    }
}
