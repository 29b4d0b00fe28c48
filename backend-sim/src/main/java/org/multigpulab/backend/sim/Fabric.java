package org.multigpulab.backend.sim;

import java.util.Arrays;
import org.multigpulab.backend.sim.NcclTuning.Hop;

/**
 * A node's GPUs and their links as NCCL's topology search sees them ({@code src/graph/topo.h} and
 * {@code topo.cc}, NCCL 2.21.5), in NCCL's units of GB/s ({@link NcclFigures} holds the links' figures): how many
 * rings at a given speed per channel the links carry.
 */
sealed interface Fabric {

    /** How many rings through {@code gpus} GPUs, each at {@code speed} GB/s, the links carry at once, up to {@code limit}. */
    int channelsAt(double speed, int gpus, NcclFigures f, int computeCapability, int limit);

    /** The fastest path from one GPU to another (NCCL's {@code maxBw}). */
    double maxBw(int gpus, NcclFigures f, int computeCapability);

    /** A GPU's NVLinks together, or its PCIe link where it has none (NCCL's {@code totalBw}). */
    double totalBw(NcclFigures f, int computeCapability);

    /** The generation of the GPU's own PCIe link (3, 4, 5). */
    int pcieGen();

    /** The GPU's own PCIe link: the path to a network card goes through it. */
    default double pciBw(NcclFigures f) {
        return f.pcie(pcieGen());
    }

    /** How NCCL's latency tables see a step between two GPUs of the node: over NVLink, unless on PCIe. */
    default Hop hop() {
        return Hop.NVLINK;
    }

    /**
     * Every GPU's NVLinks go to NVSwitches, which NCCL counts as one link per GPU of all its links' bandwidth:
     * any ring of the node passes through it, so a GPU carries as many rings as its links' sum allows.
     */
    record NvSwitch(int links, int pcieGen) implements Fabric {

        @Override
        public int channelsAt(double speed, int gpus, NcclFigures f, int computeCapability, int limit) {
            return Math.min(limit, (int) Math.floor(totalBw(f, computeCapability) / speed + 1e-9));
        }

        @Override
        public double maxBw(int gpus, NcclFigures f, int computeCapability) {
            return totalBw(f, computeCapability);
        }

        @Override
        public double totalBw(NcclFigures f, int computeCapability) {
            return links * f.nvlink(computeCapability);
        }
    }

    /**
     * NVLinks wired GPU to GPU, {@code links[i][j]} of them between GPUs i and j (DGX-1's hybrid cube mesh). A
     * ring at a speed needs that much left on every link it takes, each direction apart; {@link RingPacking} finds
     * the most rings through the first {@code gpus} GPUs.
     */
    record Mesh(int[][] links, int pcieGen) implements Fabric {

        @Override
        public int channelsAt(double speed, int gpus, NcclFigures f, int computeCapability, int limit) {
            double[][] left = new double[gpus][gpus];
            for (int i = 0; i < gpus; i++) {
                for (int j = 0; j < gpus; j++) {
                    left[i][j] = links[i][j] * f.nvlink(computeCapability);
                }
            }
            return new RingPacking(left, speed).most(limit);
        }

        @Override
        public double maxBw(int gpus, NcclFigures f, int computeCapability) {
            int most = 0;
            for (int i = 0; i < gpus; i++) {
                for (int j = 0; j < gpus; j++) {
                    most = Math.max(most, links[i][j]);
                }
            }
            return most * f.nvlink(computeCapability);
        }

        @Override
        public double totalBw(NcclFigures f, int computeCapability) {
            int most = 0;
            for (int[] row : links) {
                most = Math.max(most, Arrays.stream(row).sum());
            }
            return most * f.nvlink(computeCapability);
        }
    }

    /**
     * GPUs on PCIe: with peer-to-peer, one GPU writes into the other's memory; without it (NCCL's SHM transport) the
     * sender writes into host memory and the receiver reads it from there. Either way each GPU's ring traffic
     * crosses its own link. Without peer-to-peer, GPUs that share a PCIe switch ({@code gpusPerSwitch} of them; 1:
     * each GPU on its own root port) also share the switch's link up to the host, every one of them sending its
     * rings through it, as NCCL's search counts the bandwidth of every link along a path.
     */
    record Pcie(int pcieGen, boolean peerToPeer, int gpusPerSwitch) implements Fabric {

        @Override
        public int channelsAt(double speed, int gpus, NcclFigures f, int computeCapability, int limit) {
            return Math.min(limit, (int) Math.floor(maxBw(gpus, f, computeCapability) / speed + 1e-9));
        }

        /** The GPU's link, shared without peer-to-peer by the GPUs of its switch. */
        @Override
        public double maxBw(int gpus, NcclFigures f, int computeCapability) {
            return peerToPeer ? pciBw(f) : pciBw(f) / Math.min(gpus, gpusPerSwitch);
        }

        @Override
        public double totalBw(NcclFigures f, int computeCapability) {
            return pciBw(f);
        }

        @Override
        public Hop hop() {
            return Hop.PCI;
        }
    }
}
