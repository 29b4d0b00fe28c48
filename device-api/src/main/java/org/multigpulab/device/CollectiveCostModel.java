package org.multigpulab.device;

import java.util.Map;
import java.util.ServiceLoader;

/**
 * A cost model of collectives: how long one would take on a system of GPUs, nodes and links, computed without
 * moving any data, as nccl-tests would measure it on the real system. A backend provides it through
 * {@link ServiceLoader} ({@code sim} does), so that a command can print it without naming the backend.
 * Implementations are stateless and thread-safe.
 */
public interface CollectiveCostModel {

    /**
     * The system {@code spec} describes, checked once for a whole sweep.
     *
     * @throws DeviceException naming what is unknown or inconsistent (a profile, a topology, a NIC)
     */
    CostedSystem system(SystemSpec spec);

    /** The figures the model computes with, by name: those from sources, and those fitted on measurements. */
    Map<String, Double> figures();

    /**
     * The figures fitted on measurements (the others come from sources), each with the term of a collective's time
     * it sets.
     */
    Map<String, Term> fitted();

    /**
     * The part of a collective's time a fitted figure sets, and so the sizes it is fitted on: those where it, and
     * not another, shapes the time (as Hockney fitted a message's start-up on short messages and its rate on long
     * ones). Fitted on every size, a figure takes up the errors of the others: a share of the links fitted on small
     * collectives would follow their latency.
     */
    enum Term {
        /** The launches a small collective waits for: fitted on the sizes below 1 MB. */
        LAUNCH,
        /**
         * The fixed part of the time on the GPUs, which shows from the smallest sizes until the bytes bury it:
         * fitted on every size the bands count.
         */
        LATENCY,
        /** The time per byte: fitted on the sizes of 16 MB and more. */
        BANDWIDTH
    }

    /**
     * This model with {@code changes} in place of some of its figures: to fit them, or to see what one moves.
     *
     * @throws DeviceException naming a figure the model does not have
     */
    CollectiveCostModel with(Map<String, Double> changes);

    /**
     * What a system is made of, and how it is driven: {@code gpus} in all, spread evenly over {@code nodes}, each a
     * GPU of {@code profile} joined inside the node by {@code topology} (null: the profile's own), and between nodes
     * by {@code nicsPerNode} network cards of kind {@code nic} (null: the model's default; 0 cards: one per GPU);
     * one host thread launches each collective on {@code gpusPerThread} GPUs (nccl-tests' {@code -g}: 1 where a
     * process runs each GPU, as under {@code mpirun} and DDP).
     */
    record SystemSpec(
            int gpus, int nodes, String profile, String topology, String nic, int nicsPerNode, int gpusPerThread) {

        /** A system where a process runs each GPU. */
        public SystemSpec(int gpus, int nodes, String profile, String topology, String nic, int nicsPerNode) {
            this(gpus, nodes, profile, topology, nic, nicsPerNode, 1);
        }
    }

    /** A checked system: its description, and the time of any collective on it. */
    interface CostedSystem {

        /** One line for a report: "16× H100-SXM in 2 nodes, NVLink 4 (NVSwitch) inside, 8× 200 GbE each". */
        String description();

        /**
         * The time of {@code op} over {@code bytes} per GPU with {@code algorithm} ("ring", "tree", "nvls"), or
         * with the fastest of those the model allows when it is "auto", as NCCL chooses.
         *
         * @throws DeviceException when the algorithm is unknown or cannot run this collective on this system
         */
        Estimate estimate(Collective op, long bytes, String algorithm);
    }

    /** A collective's modelled time, in seconds, and the algorithm and protocol it was computed for. */
    record Estimate(double seconds, String algorithm, String protocol) {}

    /** The collectives nccl-tests measures, with NCCL's names and its {@code *_perf} program names. */
    enum Collective {
        ALL_REDUCE("allreduce", "all_reduce_perf", true, false),
        REDUCE_SCATTER("reducescatter", "reduce_scatter_perf", true, false),
        ALL_GATHER("allgather", "all_gather_perf", false, false),
        BROADCAST("broadcast", "broadcast_perf", false, true),
        REDUCE("reduce", "reduce_perf", true, true);

        private final String option;
        private final String program;
        private final boolean reduces;
        private final boolean rooted;

        Collective(String option, String program, boolean reduces, boolean rooted) {
            this.option = option;
            this.program = program;
            this.reduces = reduces;
            this.rooted = rooted;
        }

        /** Its name on the command line: allreduce, reducescatter, allgather, broadcast, reduce. */
        public String option() {
            return option;
        }

        /** The nccl-tests program that measures it. */
        public String program() {
            return program;
        }

        /** Whether it adds (nccl-tests prints redop {@code sum}) or only copies ({@code none}). */
        public boolean reduces() {
            return reduces;
        }

        /** Whether it has a root (nccl-tests prints root 0) or not (-1). */
        public boolean rooted() {
            return rooted;
        }

        /**
         * nccl-tests' bus bandwidth over algorithm bandwidth on {@code n} ranks (its doc/PERFORMANCE.md):
         * allreduce 2(n−1)/n, reducescatter and allgather (n−1)/n, broadcast and reduce 1.
         */
        public double busBandwidthFactor(int n) {
            return switch (this) {
                case ALL_REDUCE -> 2.0 * (n - 1) / n;
                case REDUCE_SCATTER, ALL_GATHER -> (double) (n - 1) / n;
                case BROADCAST, REDUCE -> 1.0;
            };
        }

        /** The collective called {@code option}; null when there is none. */
        public static Collective named(String option) {
            for (Collective c : values()) {
                if (c.option.equals(option)) {
                    return c;
                }
            }
            return null;
        }
    }

    /**
     * The cost model on the class path.
     *
     * @throws DeviceException when there is none
     */
    static CollectiveCostModel find() {
        return ServiceLoader.load(CollectiveCostModel.class)
                .findFirst()
                .orElseThrow(() -> new DeviceException(
                        "no collective cost model on the class path; the sim backend (backend-sim) provides one"));
    }
}
